/**
 * Git sync benchmark (not a test): `node --import tsx eval/src/bench-git-sync.ts [--json]`
 *
 * Builds a throwaway git repository from the redux corpus in a temp folder
 * (never inside the project), then ingests it with `runGitIngest` (offline
 * `local` embedder, embedded store, a fresh DATA_DIR):
 *   1. first sync (every file read and embedded);
 *   2. the same commit again;
 *   3. a new commit that touches no docs file;
 *   4. a commit changing one file: only that file's chunks may be embedded;
 *   5. a force-push (history rewritten): falls back to comparing every file by hash.
 * Targets (issue 13): an unchanged re-run under 3 s with 0 embedding calls; one
 * changed file re-embeds only that file's chunks.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVectorStoreFromConfig, loadCoreConfig, runGitIngest, type IngestReport } from '@docs-chat/core';

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpora/redux');
const json = process.argv.includes('--json');

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
}

interface Step {
  step: string;
  seconds: number;
  range: string;
  mode: string;
  files: string;
  chunksEmbedded: number;
  embeddingCalls: number;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'docs-chat-bench-git-'));
  const repo = path.join(work, 'repo');
  try {
    await cp(CORPUS, path.join(repo, 'docs'), { recursive: true });
    git(work, 'init', '--quiet', '--initial-branch=main', repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'corpus');
    const config = loadCoreConfig({
      DATA_DIR: path.join(work, 'data'),
      EMBEDDING_PROVIDER: 'local',
      GIT_URL: repo,
      GIT_REF: 'main',
      GIT_PATH: 'docs',
    });
    const steps: Step[] = [];
    const run = async (step: string): Promise<IngestReport> => {
      const started = performance.now();
      const report = await runGitIngest(config);
      const seconds = (performance.now() - started) / 1000;
      const git = report.git;
      steps.push({
        step,
        seconds: Number(seconds.toFixed(2)),
        range: `${git?.from?.slice(0, 8) ?? '(none)'}..${git?.to.slice(0, 8)}`,
        mode: `${git?.mode}${git?.changedFiles !== undefined ? ` (${git.changedFiles} changed)` : ''}`,
        files: `${report.files.added}+ ${report.files.modified}~ ${report.files.deleted}- ${report.files.unchanged}=`,
        chunksEmbedded: report.embedding.texts + report.embedding.cacheHits,
        embeddingCalls: report.embedding.calls,
      });
      return report;
    };

    const first = await run('first sync');
    await run('same commit again');
    await writeFile(path.join(repo, 'NOTES.txt'), 'not a docs file\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'touch a file outside docs');
    await run('commit outside docs/');

    const changed = 'docs/faq/General.md';
    const pagesBefore = first.files.total;
    await appendFile(
      path.join(repo, changed),
      '\n\n## A section added by the benchmark\n\nA benchmark paragraph about reducer composition.\n',
    );
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'edit one page');
    const one = await run(`one file changed (${changed})`);
    const store = createVectorStoreFromConfig(config);
    const chunksOfFile = (await store.getByFile('faq/General.md')).length;
    await store.close();

    git(repo, 'commit', '--quiet', '--amend', '-m', 'edit one page (amended: force-push)');
    await run('force-push (amended commit)');

    if (json) {
      process.stdout.write(`${JSON.stringify({ corpus: CORPUS, pages: pagesBefore, changedFileChunks: chunksOfFile, steps }, null, 2)}\n`);
    } else {
      process.stdout.write(
        `Redux corpus (${pagesBefore} pages) synced from a local git repository, EMBEDDING_PROVIDER=local, embedded store\n`,
      );
      for (const step of steps) {
        process.stdout.write(
          `${step.step.padEnd(46)} ${step.seconds.toFixed(2).padStart(6)} s  commits ${step.range}  ${step.mode.padEnd(20)} files ${step.files.padEnd(18)} chunks sent to the embedder ${String(step.chunksEmbedded).padStart(5)}  embedding calls ${step.embeddingCalls}\n`,
        );
      }
      const target = steps[3] as Step;
      process.stdout.write(
        `Unchanged re-run: ${steps[1]?.seconds.toFixed(2)} s with ${steps[1]?.embeddingCalls} embedding calls (target < 3 s, 0 calls).\n` +
          `One changed file: ${target.chunksEmbedded} chunks sent to the embedder (${one.embedding.texts} embedded, ${one.embedding.cacheHits} from cache); ${changed} has ${chunksOfFile} chunks in the index (target: only that file's chunks).\n`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
