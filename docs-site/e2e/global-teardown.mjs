// Jest global teardown of the `e2e` project: removes this run's folder (see global-setup.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function globalTeardown() {
  const workDir = process.env.DOCS_CHAT_E2E_WORK_DIR;
  // Only ever a folder the setup made under the temporary directory.
  if (workDir && path.dirname(workDir) === os.tmpdir() && path.basename(workDir).startsWith('docs-chat-e2e-')) {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
