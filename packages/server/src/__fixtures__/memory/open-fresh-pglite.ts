// Opens the conversation store's PGlite database in a new DATA_DIR, as a server's first start does, writes a
// few hundred messages' worth of rows, and prints the process's resident memory (pglite-conversation-store.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPgliteDatabase } from '../../conversations/pglite-conversation-store.js';

const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-pglite-memory-'));
try {
  const db = await openPgliteDatabase(dataDir);
  await db.query('create table notes (id int primary key, body text)');
  for (let id = 0; id < 500; id += 1) await db.query('insert into notes values ($1, $2)', [id, 'x'.repeat(2000)]);
  const rssMb = Math.round(process.memoryUsage().rss / 1048576);
  await db.close();
  process.stdout.write(JSON.stringify({ rssMb }));
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
