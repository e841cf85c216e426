// Jest global setup of the `e2e` project. Jest loads this hook outside its ESM
// transform (so TypeScript with `.js` imports would not resolve here): run the
// TypeScript preparation script through tsx in a child process instead.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');

export default function globalSetup() {
  // A folder of its own for this run (site copy, build, index, logs, ports), so two runs in one
  // checkout never share a build, a data folder or a server port. The test workers, started after
  // this hook, inherit the variable that names it; the global teardown removes it.
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chat-e2e-'));
  process.env.DOCS_CHAT_E2E_WORK_DIR = workDir;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, path.join(here, 'prepare-site.ts')],
    { stdio: 'inherit', env },
  );
  if (result.status !== 0) throw new Error('The e2e global setup could not build docs-site or ingest its docs (see the output above).');
}
