/** The `static` and `lunr` engines of `pnpm eval`: search that runs in the reader's browser, scored like the server's. */
import { evaluateRetriever, type EvaluationReport } from '../evaluate.js';
import type { GoldenQuestion } from '../question-set.js';
import { lunrRetriever } from './lunr-engine.js';
import { loadBuiltSiteIndex } from './built-site-index.js';
import { loadMarkdownCorpus } from './markdown-corpus.js';
import { staticEngineRetriever } from './static-engine.js';

export const IN_BROWSER_ENGINES = ['static', 'lunr'] as const;
export type InBrowserEngine = (typeof IN_BROWSER_ENGINES)[number];

export function isInBrowserEngine(name: string | undefined): name is InBrowserEngine {
  return (IN_BROWSER_ENGINES as readonly string[]).includes(name ?? '');
}

/** Where the sections come from: a markdown folder (cut by the server's chunker) or a site build's own index. */
export type SectionSource = { docsDir: string } | { buildDir: string };

/** Scores one in-browser engine on the sections of a markdown folder or of a site build's own index. */
export async function evaluateInBrowserEngine(
  engine: InBrowserEngine,
  source: SectionSource,
  questions: GoldenQuestion[],
  k: number,
): Promise<{ report: EvaluationReport; summary: string }> {
  const started = performance.now();
  const corpus = 'buildDir' in source ? await loadBuiltSiteIndex(source.buildDir) : await loadMarkdownCorpus(source.docsDir);
  const chunkOf = (section: number) => {
    const chunk = corpus.chunks[section];
    if (!chunk) throw new Error(`The static index has no section ${section}.`);
    return chunk;
  };
  const retriever = engine === 'static' ? staticEngineRetriever(corpus.index, chunkOf) : lunrRetriever(corpus.index, chunkOf);
  const report = await evaluateRetriever(retriever, questions, k);
  const from = 'buildDir' in source ? `the index of the site build ${source.buildDir}` : `the markdown of ${source.docsDir}`;
  return {
    report,
    summary: `Engine ${engine} on ${from}: ${corpus.index.pages.length} pages, ${corpus.index.sections.length} sections, indexed and evaluated in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  };
}
