/**
 * Tells "the database cannot be reached" apart from "this statement is wrong",
 * so that the first becomes ConversationStoreUnavailableError (answers keep
 * streaming, /health reports it) while the second stays a bug to fix.
 */
import { ConversationStoreUnavailableError } from './conversation-store.js';

// SQLSTATE classes and codes that mean the server is unreachable, starting, stopping or full.
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57P', '58'];
const UNAVAILABLE_SQLSTATES = new Set([
  '3D000', // database does not exist
  '28000', // invalid authorization
  '28P01', // wrong password
  '55000', // object not in prerequisite state (e.g. recovery)
  '25006', // read-only transaction: a standby took over
]);

interface ErrorShape {
  code?: unknown;
  severity?: unknown;
  message?: unknown;
  name?: unknown;
}

function errorShape(error: unknown): ErrorShape {
  return typeof error === 'object' && error !== null ? error : {};
}

/** True for an error the server sent back about a statement (it has a SQLSTATE and a severity). */
function isStatementError(error: unknown): boolean {
  const { code, severity, name } = errorShape(error);
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return name === 'PostgresError' || typeof severity === 'string';
}

export function isUnavailableError(error: unknown): boolean {
  if (error instanceof ConversationStoreUnavailableError) return true;
  if (!isStatementError(error)) return true;
  const code = String(errorShape(error).code);
  return UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SQLSTATE_PREFIXES.some((prefix) => code.startsWith(prefix));
}

/** Short description of an error for logs; never contains the connection URL or password. */
/** Something readable for a thrown value that is not an Error (PGlite can throw plain objects). */
function describeUnknown(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    try {
      const json = JSON.stringify(error);
      if (json && json !== '{}') return json.slice(0, 300);
    } catch {
      // fall through to the type name
    }
    return `${error.constructor?.name ?? 'value'} without a message`;
  }
  return String(error);
}

export function describeDatabaseError(error: unknown): string {
  const { code, message } = errorShape(error);
  const text = typeof message === 'string' ? message : describeUnknown(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** Re-throws connection failures as ConversationStoreUnavailableError and anything else unchanged. */
export function toStoreError(error: unknown, backend: 'postgres' | 'pglite'): unknown {
  if (error instanceof ConversationStoreUnavailableError || !isUnavailableError(error)) return error;
  const hint =
    backend === 'postgres'
      ? 'Check that the database in DATABASE_URL is running and reachable; answers still stream but are not saved until it is back.'
      : 'The embedded database under DATA_DIR/conversations could not be used: check the folder is writable and not opened by another process.';
  return new ConversationStoreUnavailableError(`The conversation database is unavailable (${describeDatabaseError(error)}).`, {
    hint,
    cause: error,
  });
}
