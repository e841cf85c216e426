/** One ingest at a time per index (see locks/pid-lock-file.ts for how stale locks are handled). */
import path from 'node:path';
import { DocsChatError } from '../errors.js';
import { acquirePidLock, type PidLock } from '../locks/pid-lock-file.js';

export type IngestLock = PidLock;

export async function acquireIngestLock(dataDir: string, name: string): Promise<IngestLock> {
  const file = path.join(dataDir, 'locks', `ingest-${name}.lock`);
  return acquirePidLock(
    file,
    (owner) =>
      new DocsChatError('ingest_locked', `Another ingest is already running (pid ${owner.pid}, started ${owner.startedAt}).`, {
        hint: `Wait for it to finish. If no ingest is running, delete ${file}.`,
      }),
  );
}
