/**
 * PGlite is one process's private database: two processes opening the same
 * folder corrupt it. A lock file holding the owner's pid keeps a second
 * server (or a second replica pointed at the same volume) out, with a message
 * saying what to do; a lock left by a process that died is taken over.
 */
import path from 'node:path';
import { acquirePidLock, type PidLock } from '@docs-chat/core';
import { ConversationStoreUnavailableError } from './conversation-store.js';

export type DataDirLock = PidLock;

/** Takes `${dataDir}/locks/conversations.lock`, or fails when a live process holds it. */
export async function lockConversationDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'locks', 'conversations.lock');
  return acquirePidLock(
    file,
    (owner) =>
      new ConversationStoreUnavailableError(
        `The embedded conversation database in ${path.join(dataDir, 'conversations')} is in use by another process (pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}).`,
        {
          hint: `Run one docs-chat server per DATA_DIR, or set DATABASE_URL so several replicas share Postgres. If no other server runs, delete ${file}.`,
        },
      ),
  );
}
