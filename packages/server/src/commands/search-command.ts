/** `docs-chat search`: the best matching sections, as a table or JSON. */
import { parseArgs } from 'node:util';
import { isDocsChatError, loadCoreConfig, openRetrieval, validateQuery } from '@docs-chat/core';
import type { SearchExplanation, SearchResponse } from '@docs-chat/core';

const USAGE =
  'Usage: docs-chat search "QUESTION" [--k 5] [--file-prefix PATH] [--version NAME] [--locale LOCALE] [--docs-instance ID] [--json] [--explain]';

const percent = (value: number): string => value.toFixed(2);

/** `--explain` for people: the words added to the question, then each signal of the out-of-scope check against its threshold. */
export function formatExplanation(response: SearchResponse, explanation: SearchExplanation): string {
  const { scope } = explanation;
  const added =
    explanation.addedTerms.length === 0
      ? 'nothing'
      : explanation.addedTerms.map((term) => `${term.term} (${term.source}, ${term.weight.toFixed(2)})`).join(', ');
  const evidence = scope.coverage + scope.dense;
  const verdict = response.outOfScope ? 'out of scope' : 'in scope';
  const lines = [
    'Why these results:',
    `  question words: ${explanation.questionTerms.join(', ') || 'none'}`,
    `  also searched for: ${added}`,
    `  verdict: ${verdict} (confidence ${response.confidence.toFixed(2)}); out of scope when any line below is marked ✗ (thresholds fitted on this index at ingest, or SCOPE_MIN_*)`,
    `    ${scope.vocabulary >= scope.minVocabulary ? '✓' : '✗'} vocabulary ${percent(scope.vocabulary)} (at least ${scope.minVocabulary}): share of the question's informative words the docs use anywhere`,
    `    ${evidence >= scope.minEvidence ? '✓' : '✗'} coverage ${percent(scope.coverage)} + dense ${percent(scope.dense)} = ${percent(evidence)} (at least ${scope.minEvidence}): words found in the best sections, plus the best cosine`,
    `    ${scope.dense >= scope.minDense || scope.coverage >= scope.denseVetoCoverage ? '✓' : '✗'} dense ${percent(scope.dense)} (at least ${scope.minDense}${scope.minDense === 0 ? ': no dense rule for this embedder and index' : `, or coverage at least ${scope.denseVetoCoverage}`}): the best cosine alone, unless the best sections hold most of the question's words`,
    `    ${scope.missingNames.length === 0 ? '✓' : '✗'} names no top section mentions: ${scope.missingNames.join(', ') || 'none'}`,
    `    ${scope.lonelyNames.length === 0 ? '✓' : '✗'} names mentioned only apart from the question's other words: ${scope.lonelyNames.join(', ') || 'none'}`,
  ];
  if (response.hits.length === 0) lines.push('    ✗ no section matched at all');
  if (explanation.condensedQuestion !== undefined) {
    lines.push(
      `  the question was too long to search as it is; searched for: ${explanation.condensedQuestion.replace(/\s+/g, ' ').slice(0, 300)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function runSearchCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        k: { type: 'string', default: '5' },
        'file-prefix': { type: 'string' },
        json: { type: 'boolean', default: false },
        explain: { type: 'boolean', default: false },
        version: { type: 'string' },
        locale: { type: 'string' },
        'docs-instance': { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 50) {
    process.stderr.write(`--k must be a whole number from 1 to 50.\n${USAGE}\n`);
    return 2;
  }
  const question = positionals.join(' ');
  try {
    validateQuery(question);
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      const response = await retrieval.retriever.search(question, {
        k,
        ...(values['file-prefix'] ? { filter: { filePrefix: values['file-prefix'] } } : {}),
        explain: values.explain,
        scope: {
          ...(values.version !== undefined ? { version: values.version } : {}),
          ...(values.locale !== undefined ? { locale: values.locale } : {}),
          ...(values['docs-instance'] !== undefined ? { instance: values['docs-instance'] } : {}),
        },
      });
      const applied = response.scope;
      for (const ignored of applied?.ignored ?? [])
        process.stderr.write(`docs-chat search: ${ignored}; searched ${applied?.version} (${applied?.locale}) instead.\n`);
      if (!applied && (values.version !== undefined || values.locale !== undefined)) {
        process.stderr.write(
          'docs-chat search: this index holds one docs folder, not a whole site: --version and --locale change nothing (ingest with --site DIR to use them).\n',
        );
      }
      if (values.json) {
        // An array of results; each carries the out-of-scope verdict so scripts can read it from any row.
        const results = response.hits.map((hit) => ({
          rank: hit.rank,
          score: hit.score,
          file: hit.chunk.file,
          title: hit.chunk.title,
          heading_path: hit.chunk.headingPath,
          url: hit.chunk.url,
          text: hit.chunk.text,
          ...(hit.chunk.version !== undefined ? { version: hit.chunk.version } : {}),
          ...(hit.chunk.locale !== undefined ? { locale: hit.chunk.locale } : {}),
          ...(hit.chunk.fallbackLocale !== undefined ? { fallback_locale: hit.chunk.fallbackLocale } : {}),
          out_of_scope: response.outOfScope,
        }));
        // With --explain the array goes under `results`, next to the explanation.
        const output = values.explain ? { results, explanation: response.explanation } : results;
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
        return 0;
      }
      if (applied) {
        const other = applied.readerVersion ? ` (the question names it; you asked for ${applied.readerVersion})` : '';
        process.stdout.write(`Searched version ${applied.versionLabel}${other}, locale ${applied.locale}.\n\n`);
      }
      if (response.outOfScope) {
        process.stdout.write('Nothing in the docs seems to answer this question (the closest sections follow).\n\n');
      }
      for (const hit of response.hits) {
        const excerpt = hit.chunk.text.replace(/\s+/g, ' ').slice(0, 160);
        const note = hit.chunk.fallbackLocale ? `  [not translated: ${hit.chunk.fallbackLocale} text]` : '';
        process.stdout.write(
          `${hit.rank}. ${hit.chunk.headingPath.join(' › ')}  (score ${hit.score.toFixed(4)})${note}\n   ${hit.chunk.url}\n   ${hit.chunk.file}\n   ${excerpt}${hit.chunk.text.length > 160 ? '…' : ''}\n\n`,
        );
      }
      if (response.hits.length === 0) process.stdout.write('No results: is the index empty? Run `pnpm docs-chat ingest`.\n');
      if (response.explanation) process.stdout.write(formatExplanation(response, response.explanation));
      return 0;
    } finally {
      await retrieval.close();
    }
  } catch (error) {
    if (isDocsChatError(error)) {
      process.stderr.write(`docs-chat search: ${error.describe()}\n`);
      return error.code === 'query_invalid' ? 2 : 1;
    }
    throw error;
  }
}
