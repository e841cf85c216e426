/** Chooses the conversation store from configuration; each implementation is loaded only when chosen. */
import type { ConversationStore, ConversationStoreOptions } from './conversation-store.js';
import { ConversationStoreUnavailableError } from './conversation-store.js';

/**
 * databaseUrl set -> postgres driver; else PGlite under `${dataDir}/conversations` ('memory://' when dataDir is ':memory:'),
 * in a process of its own when `pgliteProcess` is set (the server), in this one otherwise (CLI commands, tests).
 */
export async function createConversationStore(options: ConversationStoreOptions): Promise<ConversationStore> {
  // Loaded on demand so a Postgres deployment never loads the PGlite WebAssembly, and the reverse.
  if (options.databaseUrl) {
    const { createPostgresConversationStore } = await import('./postgres-conversation-store.js');
    return createPostgresConversationStore({
      databaseUrl: options.databaseUrl,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      ...(options.connectTimeoutSeconds === undefined ? {} : { connectTimeoutSeconds: options.connectTimeoutSeconds }),
    });
  }
  if (options.pgliteProcess && options.dataDir !== ':memory:') {
    const { createPgliteProcessConversationStore } = await import('./pglite-process-store.js');
    return createPgliteProcessConversationStore({
      dataDir: options.dataDir,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      ...(options.onPgliteProcessEvent ? { onEvent: options.onPgliteProcessEvent } : {}),
    });
  }
  const { createPgliteConversationStore } = await import('./pglite-conversation-store.js');
  try {
    return await createPgliteConversationStore({
      dataDir: options.dataDir,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    });
  } catch (error) {
    // A server holds the folder: a command run beside it (docs-chat insights) uses the server's database process.
    if (!(error instanceof ConversationStoreUnavailableError) || options.dataDir === ':memory:') throw error;
    const { connectToRunningPgliteProcess } = await import('./pglite-process-store.js');
    const shared = await connectToRunningPgliteProcess(options.dataDir);
    if (shared) return shared;
    throw error;
  }
}
