import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { lastLines, runNode, startNode, stopProcess } from './child-process.js';
import { SERVER_CLI, TSX_LOADER } from './paths.js';

/**
 * Variables that would take the server or the ingest off the offline defaults
 * (a real model, Qdrant, a Postgres URL): removed so the suite always runs the
 * local embedder, the embedded store, extractive answers and PGlite.
 */
const NON_DEFAULT_VARIABLES = [
  'GEMINI_API_KEY',
  'GEMINI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'LLM_PROVIDER',
  'LLM_BASE_URL',
  'LLM_MODEL',
  'EMBEDDING_PROVIDER',
  'EMBEDDING_MODEL',
  'EMBEDDING_DIMENSIONS',
  'VECTOR_STORE',
  'QDRANT_URL',
  'QDRANT_API_KEY',
  'DATABASE_URL',
  'DOCS_DIR',
  'DOCS_ROUTE_BASE_PATH',
  'DOCS_PERMALINKS_FILE',
  'NODE_OPTIONS',
];

/** The environment of a server or ingest on offline defaults, plus `extra`. */
export function offlineEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of NON_DEFAULT_VARIABLES) delete env[name];
  return { ...env, ...extra };
}

function cliArgs(command: string[]): string[] {
  return ['--import', pathToFileURL(TSX_LOADER).href, SERVER_CLI, ...command];
}

export interface IngestOptions {
  dataDir: string;
  docsDir: string;
  /** The build's permalinks (the ingest also finds them beside docs/, this makes it explicit). */
  permalinksFile: string | null;
  logFile: string;
}

/**
 * `docs-chat ingest --docs <dir>` as an admin runs it. The working directory is
 * the data folder's parent, so a developer's .env in the repository is not read.
 */
export async function ingestDocs(options: IngestOptions): Promise<void> {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const env = offlineEnvironment({
    DATA_DIR: options.dataDir,
    ...(options.permalinksFile ? { DOCS_PERMALINKS_FILE: options.permalinksFile } : {}),
  });
  await runNode('docs-chat ingest', cliArgs(['ingest', '--docs', options.docsDir]), {
    cwd: path.dirname(options.dataDir),
    env,
    logFile: options.logFile,
    timeoutMs: 240_000,
  });
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface RunningChatServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `docs-chat serve` on 127.0.0.1:`port` and waits until /health answers 200. */
export async function startChatServer(options: {
  dataDir: string;
  port: number;
  corsOrigin: string;
  logFile: string;
  /** Added to the offline defaults, e.g. a Gemini provider pointed at the local stand-in. */
  extraEnv?: Record<string, string>;
}): Promise<RunningChatServer> {
  const env = offlineEnvironment({
    DATA_DIR: options.dataDir,
    PORT: String(options.port),
    HOST: '127.0.0.1',
    CORS_ORIGINS: options.corsOrigin,
    LOG_LEVEL: 'info',
    ...options.extraEnv,
  });
  // A server left over from an interrupted run would answer /health in place of this one.
  if (await isListening(options.port)) {
    throw new Error(
      `Port ${options.port} on 127.0.0.1 is already in use (a docs-chat server left over from an interrupted run?): stop that process and run the suite again.`,
    );
  }
  const child = startNode(cliArgs(['serve']), { cwd: path.dirname(options.dataDir), env, logFile: options.logFile });
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 90_000;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(
        `docs-chat serve exited with code ${child.exitCode} before answering; last lines of ${options.logFile}:\n${lastLines(options.logFile, 30)}`,
      );
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return { url, process: child, stop: () => stopProcess(child) };
      lastProblem = `/health answered ${response.status}: ${await response.text()}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  await stopProcess(child);
  throw new Error(`docs-chat serve did not become healthy within 90 s (${lastProblem}); see ${options.logFile}`);
}
