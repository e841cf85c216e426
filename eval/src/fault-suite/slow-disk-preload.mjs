/**
 * Fault injection, loaded with `node --import` into a server the suite starts: in the `docs-chat ingest`
 * process (which inherits the server's flags), each rename of a temporary `.tmp` file into place waits
 * FAULT_TMP_RENAME_DELAY_MS first, as on a slow or overloaded disk. The index writer then holds a temporary
 * file long enough for a kill to land while it exists, on any host, instead of within the fraction of a
 * millisecond a fast disk takes.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const delayMs = Number(process.env.FAULT_TMP_RENAME_DELAY_MS ?? '0');

if (delayMs > 0 && process.argv.includes('ingest')) {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    if (String(from).endsWith('.tmp')) await new Promise((wait) => setTimeout(wait, delayMs));
    return rename(from, to);
  };
  // `import { rename } from 'node:fs/promises'` reads the ES module's own copy of the export.
  syncBuiltinESMExports();
}
