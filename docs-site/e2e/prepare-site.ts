import fs from 'node:fs';
import path from 'node:path';
import { ingestDocs } from './support/chat-server.js';
import { findFreePort } from './support/free-port.js';
import { E2E_ARTIFACTS_DIR, e2eWorkDir } from './support/paths.js';
import { sharedBuildFile, type SharedSiteBuild } from './support/shared-build.js';
import { buildDocsSite } from './support/site-build.js';

/**
 * Run by the `e2e` project's Jest global setup (global-setup.mjs), which names
 * this run's folder in DOCS_CHAT_E2E_WORK_DIR: builds docs-site once
 * (its widget pointing at a chat server port chosen now) and ingests the built
 * copy's docs with the build's permalinks, for every test file to share.
 */
async function prepareSite(): Promise<void> {
  const workDir = e2eWorkDir();
  fs.mkdirSync(E2E_ARTIFACTS_DIR, { recursive: true });

  const serverPort = await findFreePort();
  let sitePort = await findFreePort();
  while (sitePort === serverPort) sitePort = await findFreePort();

  const started = Date.now();
  const build = await buildDocsSite({ workDir, serverUrl: `http://127.0.0.1:${serverPort}` });
  const dataDir = path.join(workDir, 'data');
  await ingestDocs({ dataDir, docsDir: build.docsDir, permalinksFile: build.permalinksFile, logFile: path.join(workDir, 'ingest.log') });
  const shared: SharedSiteBuild = { ...build, serverPort, sitePort, dataDir, workDir };
  fs.writeFileSync(sharedBuildFile(), `${JSON.stringify(shared, null, 2)}\n`);
  process.stdout.write(`\ne2e: built docs-site and ingested its docs in ${((Date.now() - started) / 1000).toFixed(1)} s (${workDir})\n`);
}

prepareSite().catch((error: unknown) => {
  process.stderr.write(`e2e: could not prepare the docs site: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
