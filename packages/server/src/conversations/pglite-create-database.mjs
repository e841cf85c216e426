// Creates the PGlite database of a new DATA_DIR in a process of its own (see pglite-conversation-store.ts):
// the hundreds of MB initdb touches go back to the system when this process ends, instead of staying in the
// server's resident memory. Usage: node pglite-create-database.mjs FOLDER START_PARAMS_JSON
import { PGlite } from '@electric-sql/pglite';

const [location, startParams] = process.argv.slice(2);
try {
  const db = await PGlite.create(location, { startParams: JSON.parse(startParams) });
  await db.close();
} catch (error) {
  process.stderr.write(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
