/**
 * The `docs-chat` command line: `ingest`, `search`, `insights`, `serve` and `mcp`.
 * Run from the repository root as `pnpm docs-chat <command>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runIngestCommand } from './commands/ingest-command.js';
import { runInsightsCommand } from './commands/insights-command.js';
import { runSearchCommand } from './commands/search-command.js';

const USAGE = `Usage: docs-chat <command> [options]

Commands:
  ingest [--docs DIR] [--rebuild] [--dry-run] [--json]
      Index the markdown/MDX of DIR (default: DOCS_DIR or docs-site/docs).
      Only files that changed since the last run are embedded again.
  ingest --git URL_OR_PATH [--ref BRANCH] [--path SUBDIR]
      Sync a git repository (clone kept in DATA_DIR) and index SUBDIR; the next
      run reads only the files changed between the two commits.
  ingest --records FILE_OR_DIR --map 'id=PATH,title=PATH,text=PATH,url=PATH'
      Index JSON records (array or JSON Lines) beside the docs; examples=PATH
      keeps a record's examples with it.
  search "QUESTION" [--k 5] [--file-prefix PATH] [--json]
      Print the best matching sections of the docs.
  insights [--since 7d] [--json | --csv]
      What readers asked (1h to 365d back): questions per day, most asked,
      refused questions with the sections that came closest, down-voted
      answers, most and least cited pages. Reads DATABASE_URL or DATA_DIR.
  serve
      Start the chat server (PORT, default 8000).
  mcp
      Serve the docs to an AI agent over MCP on stdin/stdout (search_docs,
      read_page, ask_docs); the chat server also serves MCP at POST /mcp.

Configuration comes from the environment and from .env when present;
see .env.example for every variable.`;

function loadDotEnv(): void {
  const file = path.resolve(process.cwd(), '.env');
  if (fs.existsSync(file) && typeof process.loadEnvFile === 'function') process.loadEnvFile(file);
}

const COMMANDS = new Set(['ingest', 'search', 'insights', 'serve', 'mcp']);

/**
 * A folder setting (DATA_DIR, EMBEDDING_CACHE_DIR) whose parent folder is missing is almost always a typo: say
 * so instead of creating a tree.
 */
function folderProblem(env: NodeJS.ProcessEnv, name: 'DATA_DIR' | 'EMBEDDING_CACHE_DIR'): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const dir = path.resolve(process.cwd(), value);
  if (fs.existsSync(dir))
    return fs.statSync(dir).isDirectory()
      ? undefined
      : `${name}=${value} is a file, not a folder; set ${name} to a folder docs-chat may write to.`;
  const parent = path.dirname(dir);
  if (!fs.existsSync(parent))
    return `${name}=${value}: its parent folder ${parent} does not exist; create it or point ${name} at a folder whose parent exists.`;
  return undefined;
}

/**
 * `docs-chat search … | head` closes the pipe before the command has written everything: stop quietly, as
 * `git log | head` does, instead of printing an EPIPE stack trace. Only the commands that print a result and
 * end; `serve` and `mcp` keep their own handling of their output.
 */
function stopQuietlyWhenOutputCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (!COMMANDS.has(command)) {
    process.stderr.write(
      `docs-chat: unknown command "${command}"; the commands are ${[...COMMANDS].join(', ')} (run \`docs-chat --help\` for their options).\n`,
    );
    return 2;
  }
  loadDotEnv();
  const problem = folderProblem(process.env, 'DATA_DIR') ?? folderProblem(process.env, 'EMBEDDING_CACHE_DIR');
  if (problem !== undefined) {
    process.stderr.write(`docs-chat: ${problem}\n`);
    return 2;
  }
  if (command === 'ingest' || command === 'search' || command === 'insights') stopQuietlyWhenOutputCloses();
  switch (command) {
    case 'ingest':
      return runIngestCommand(rest, process.env);
    case 'search':
      return runSearchCommand(rest, process.env);
    case 'insights':
      return runInsightsCommand(rest, process.env);
    case 'serve': {
      const { runServeCommand } = await import('./serve-command.js');
      return runServeCommand(rest, process.env);
    }
    case 'mcp': {
      const { runMcpCommand } = await import('./commands/mcp-command.js');
      return runMcpCommand(rest, process.env);
    }
    default:
      return 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`docs-chat: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
