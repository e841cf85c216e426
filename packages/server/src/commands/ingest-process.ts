/**
 * Runs `docs-chat ingest --json` in a child process for `POST /admin/ingest`.
 * Reading, chunking and embedding a docs set is seconds of CPU: in the server's
 * own thread it would stall every answer streaming meanwhile (budget: event-loop
 * p99 <= 20 ms while readers chat, issue 16). The child reads the same
 * environment, takes the same ingest lock, prints the same report, and ends
 * at once if the server dies (see SERVER_INGEST_VARIABLE).
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocsChatError, SEARCH_THREAD_NICENESS, type DocsChatErrorCode, type IngestReport } from '@docs-chat/core';
import { SERVER_INGEST_VARIABLE } from './ingest-command.js';

/** The CLI next to this module: `cli.ts` from the sources (run through tsx), `cli.js` once built. */
const CLI = fileURLToPath(new URL(`../cli${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

export function runIngestProcess(env: NodeJS.ProcessEnv, options: { rebuild?: boolean; dryRun?: boolean }): Promise<IngestReport> {
  const args = ['ingest', '--json', ...(options.rebuild ? ['--rebuild'] : []), ...(options.dryRun ? ['--dry-run'] : [])];
  // From the TypeScript sources the child needs the loader the server itself may have been started without (tests).
  const execArgv =
    CLI.endsWith('.ts') && !process.execArgv.some((flag) => flag.includes('tsx'))
      ? [...process.execArgv, '--import', 'tsx']
      : process.execArgv;
  return new Promise<IngestReport>((resolve, reject) => {
    // Without the cluster's own variable: the ingest is a plain process, not another server of the cluster.
    const { NODE_UNIQUE_ID: _cluster, ...plainEnv } = env;
    const child = fork(CLI, args, {
      env: { ...plainEnv, [SERVER_INGEST_VARIABLE]: '1' },
      execArgv,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // The whole child yields the CPU to the server, whose event loop keeps streaming answers meanwhile (the same
    // nice value as the server's inference threads; a process's priority, so every platform honours it).
    if (child.pid !== undefined) {
      try {
        // Never below the server's own (a server started with `nice` keeps its ingests at least as nice).
        os.setPriority(child.pid, Math.max(os.getPriority(), SEARCH_THREAD_NICENESS));
      } catch {
        // Not allowed here (a container without the capability to renice): the ingest runs at the server's priority.
      }
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      let parsed:
        (IngestReport & { error?: undefined }) | { error: { code: DocsChatErrorCode; message: string; hint?: string } } | undefined;
      try {
        parsed = JSON.parse(stdout.slice(stdout.indexOf('{'))) as typeof parsed;
      } catch {
        parsed = undefined;
      }
      if (parsed?.error)
        reject(new DocsChatError(parsed.error.code, parsed.error.message, parsed.error.hint ? { hint: parsed.error.hint } : {}));
      else if (parsed) resolve(parsed);
      else reject(new Error(`the ingest process ended (${signal ?? `exit code ${code}`}) without a report: ${stderr.trim()}`));
    });
  });
}
