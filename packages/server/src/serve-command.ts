/**
 * `docs-chat serve`: reads the configuration (.env included), starts the
 * server and stops it gracefully on SIGINT/SIGTERM. A wrong configuration,
 * a missing index or a rejected model key ends the command with a message
 * that says what to fix, and exit code 1.
 */
import { parseArgs } from 'node:util';
import { isDocsChatError } from './core-api.js';
import { loadConfig, loadDotEnvFile } from './config.js';
import { isLlmError } from './llm/chat-model.js';
import { ConversationStoreUnavailableError } from './conversations/conversation-store.js';
import { startServer, type RunningServer } from './server-runtime.js';

const USAGE = `Usage: docs-chat serve [--port N] [--host ADDRESS]

Starts the chat server (POST /chat, GET /health, ...). Every setting comes from the
environment or .env; see .env.example. --port and --host override PORT and HOST.`;

export async function runServeCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const effective = { ...env };
  loadDotEnvFile(undefined, effective);
  if (parsed.values.port !== undefined) effective.PORT = parsed.values.port;
  if (parsed.values.host !== undefined) effective.HOST = parsed.values.host;

  let server: RunningServer;
  try {
    server = await startServer(loadConfig(effective));
  } catch (error) {
    process.stderr.write(`docs-chat serve: ${startupFailure(error)}\n`);
    return 1;
  }

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // A second Ctrl-C means "now".
        server.logger.warn({ signal }, 'second stop signal: exiting without waiting');
        resolve(130);
        return;
      }
      stopping = true;
      server.logger.info({ signal }, 'stopping: no new requests, running answers may finish');
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          server.logger.error({ err: { message: (error as Error).message } }, 'error while stopping');
          resolve(1);
        },
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** One message for the admin: what failed and what to do; never a stack trace or a key. */
export function startupFailure(error: unknown): string {
  if (isDocsChatError(error)) return error.describe();
  if (isLlmError(error)) return error.hint ? `${error.message}\n  → ${error.hint}` : error.message;
  if (error instanceof ConversationStoreUnavailableError) return `${error.message}\n  → ${error.hint}`;
  if (error instanceof Error && 'code' in error && (error as { code?: unknown }).code === 'EADDRINUSE') {
    return `${error.message}\n  → Another program uses this port: stop it or set PORT to a free port.`;
  }
  return error instanceof Error ? error.message : String(error);
}
