/**
 * Ingest faults against the main server's index: `docs-chat ingest` killed
 * half-way (SIGKILL once it has started writing), then run again; two CLI
 * ingests at once; two `POST /admin/ingest` at once.
 */
import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { IngestReport } from '@docs-chat/core';
import { cacheFileName, LOCAL_EMBEDDER_MODEL } from '@docs-chat/core';
import { expectThat } from './report.js';
import { CLI, completion, sleep, spawnTs, temporaryDirectory } from './processes.js';
import { until, type SuiteContext } from './suite-context.js';

/** Large enough that embedding and writing take a few seconds on this machine, so a kill lands in the middle. */
const SYNTHETIC_PAGES = 3000;
const LOCAL_DIMENSIONS = 384;

function syntheticPage(index: number): string {
  const filler = (sentence: string, times: number): string => Array.from({ length: times }, () => sentence).join(' ');
  return [
    '---',
    `title: Synthetic page ${index}`,
    '---',
    '',
    `# Synthetic page ${index}`,
    '',
    `The quorvex${index} module handles synthetic topic number ${index}. ${filler('It keeps harbors, tides and currents in order.', 15)}`,
    '',
    `## Setting up quorvex${index}`,
    '',
    filler(`Set the quorvex${index} option before opening the harbor.`, 15),
    '',
    `## Details of quorvex${index}`,
    '',
    filler('Each detail paragraph adds words so chunks have weight.', 25),
    '',
  ].join('\n');
}

interface SearchBody {
  results: { file: string }[];
}

async function search(url: string, query: string): Promise<{ status: number; files: string[] }> {
  const response = await fetch(`${url}/search?${new URLSearchParams({ q: query, k: '5' }).toString()}`);
  const body = (await response.json()) as SearchBody;
  return { status: response.status, files: (body.results ?? []).map((result) => result.file) };
}

function ingestEnv(context: SuiteContext): Record<string, string> {
  return { DATA_DIR: context.dataDir, DOCS_DIR: context.docsDir, EMBEDDING_PROVIDER: 'local', VECTOR_STORE: 'embedded' };
}

async function touchSyntheticPages(context: SuiteContext, note: string): Promise<void> {
  const directory = path.join(context.docsDir, 'synthetic');
  for (let index = 0; index < SYNTHETIC_PAGES; index += 1) {
    await appendFile(path.join(directory, `page-${index}.md`), `\n${note} for page ${index}.\n`);
  }
}

export async function runIngestFaults(context: SuiteContext): Promise<void> {
  const { report, main } = context;
  const syntheticDir = path.join(context.docsDir, 'synthetic');
  await mkdir(syntheticDir, { recursive: true });
  for (let index = 0; index < SYNTHETIC_PAGES; index += 1)
    await writeFile(path.join(syntheticDir, `page-${index}.md`), syntheticPage(index));
  const cacheFile = path.join(
    context.dataDir,
    'embedding-cache',
    cacheFileName({ provider: 'local', model: LOCAL_EMBEDDER_MODEL, dimensions: LOCAL_DIMENSIONS }),
  );
  const cacheBytesBefore = existsSync(cacheFile) ? statSync(cacheFile).size : 0;
  const lockFile = path.join(context.dataDir, 'locks', 'ingest-docusaurus-book.lock');
  const cwd = await temporaryDirectory('ingest-cwd');

  let killedWhileWriting = false;
  await report.check(
    'faults',
    `docs-chat ingest of ${SYNTHETIC_PAGES} new pages, SIGKILLed once it has started writing, leaves the previous index serving /search`,
    async () => {
      const before = await search(main.url, 'How do I install Tidewater?');
      expectThat(
        before.status === 200 && before.files.length > 0,
        `/search answered ${before.status} with ${before.files.length} results before the ingest`,
      );
      const child = spawnTs(CLI, ['ingest', '--json'], ingestEnv(context), cwd);
      const ended = completion(child);
      // Writing has started once the first batch of new embeddings is appended to the cache file.
      await until(
        'the ingest writing',
        () =>
          child.exitCode !== null ||
          (existsSync(cacheFile) && statSync(cacheFile).size > cacheBytesBefore + 16 + LOCAL_DIMENSIONS * 4 + 36),
        60_000,
        10,
      );
      child.kill('SIGKILL');
      const result = await ended;
      expectThat(
        result.signal === 'SIGKILL',
        `the ingest ended by itself (exit ${result.code}) before it could be killed; make the synthetic docs larger`,
      );
      killedWhileWriting = true;
      expectThat(existsSync(lockFile), 'the killed ingest left no lock file (the takeover of a stale lock is then not exercised)');
      const during = await search(main.url, 'How do I install Tidewater?');
      expectThat(
        during.status === 200 && during.files.length > 0,
        `/search answered ${during.status} with ${during.files.length} results after the kill`,
      );
      const half = await search(main.url, 'quorvex17 module');
      expectThat(!half.files.some((file) => file.startsWith('synthetic/')), `half-written pages are visible: ${half.files.join(', ')}`);
      return `killed after ${statSync(cacheFile).size - cacheBytesBefore} bytes of new embeddings; /search still answers from ${during.files[0]}`;
    },
  );

  await report.check(
    'faults',
    'the next docs-chat ingest takes over the stale lock, finishes the job and reports the remaining work (every new page added, embeddings of the killed run reused)',
    async () => {
      expectThat(killedWhileWriting, 'the kill did not happen, so there is nothing to resume');
      const result = await completion(spawnTs(CLI, ['ingest', '--json'], ingestEnv(context), cwd));
      expectThat(result.code === 0, `exit ${result.code}: ${result.stderr.slice(0, 400)}`);
      const ingest = JSON.parse(result.stdout) as IngestReport;
      expectThat(ingest.files.added === SYNTHETIC_PAGES, `${ingest.files.added} files added`);
      expectThat(ingest.embedding.cacheHits > 0, 'nothing was reused from the killed run');
      expectThat(!existsSync(lockFile), 'the lock was not released');
      await until(
        'the new pages searchable',
        async () => (await search(main.url, 'quorvex17 module')).files.includes('synthetic/page-17.md'),
        10_000,
        250,
      );
      return `${ingest.files.added} added, ${ingest.embedding.texts} embedded, ${ingest.embedding.cacheHits} reused`;
    },
  );

  await report.check(
    'faults',
    'a second docs-chat ingest started while one runs is refused with the ingest_locked message, and the first finishes',
    async () => {
      await touchSyntheticPages(context, 'Edited by the lock check');
      const first = spawnTs(CLI, ['ingest', '--json'], ingestEnv(context), cwd);
      const firstEnded = completion(first);
      await until('the first ingest holding the lock', () => first.exitCode !== null || existsSync(lockFile), 30_000, 10);
      const second = await completion(spawnTs(CLI, ['ingest', '--json'], ingestEnv(context), cwd));
      const firstResult = await firstEnded;
      expectThat(firstResult.code === 0, `the first ingest exited ${firstResult.code}`);
      expectThat(second.code === 1, `the second ingest exited ${second.code}`);
      const refusal = JSON.parse(second.stdout) as { error?: { code: string; message: string; hint?: string } };
      expectThat(refusal.error?.code === 'ingest_locked', `second ingest output: ${second.stdout.slice(0, 200)}`);
      expectThat(/Another ingest is already running/.test(second.stderr) && refusal.error.hint, `stderr: ${second.stderr.slice(0, 200)}`);
      return refusal.error.message;
    },
  );

  await report.check(
    'faults',
    'two POST /admin/ingest at once: one runs and returns its report, the other gets 409 ingest_running',
    async () => {
      await touchSyntheticPages(context, 'Edited by the admin check');
      const post = () =>
        fetch(`${main.url}/admin/ingest`, { method: 'POST', headers: { authorization: `Bearer ${context.adminToken}` } }).then(
          async (response) => ({
            status: response.status,
            body: (await response.json()) as { report?: IngestReport; error?: { code: string; message: string } },
          }),
        );
      const first = post();
      await sleep(30);
      const answers = await Promise.all([first, post()]);
      const statuses = answers.map((answer) => answer.status).sort();
      expectThat(statuses.join(',') === '200,409', `statuses ${statuses.join(',')}`);
      const refused = answers.find((answer) => answer.status === 409)!;
      expectThat(
        refused.body.error?.code === 'ingest_running' && refused.body.error.message.length > 0,
        `409 body ${JSON.stringify(refused.body)}`,
      );
      const ran = answers.find((answer) => answer.status === 200)!;
      expectThat(ran.body.report?.files.modified === SYNTHETIC_PAGES, `the admin ingest modified ${ran.body.report?.files.modified} files`);
      return `"${refused.body.error.message}"`;
    },
  );
}
