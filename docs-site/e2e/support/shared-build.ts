import fs from 'node:fs';
import path from 'node:path';
import { e2eWorkDir } from './paths.js';
import type { SiteBuild } from './site-build.js';

/** What the e2e project's global setup prepared for its test files. */
export interface SharedSiteBuild extends SiteBuild {
  /** The chat server URL baked into the build: tests start the server on this port. */
  serverPort: number;
  /** Where tests serve the site; the server's CORS_ORIGINS allows exactly this origin. */
  sitePort: number;
  /** Index built by `docs-chat ingest` from the build's docs and permalinks. */
  dataDir: string;
  workDir: string;
}

/** Where this run's global setup describes what it prepared. */
export function sharedBuildFile(): string {
  return path.join(e2eWorkDir(), 'shared-site-build.json');
}

export function readSharedBuild(): SharedSiteBuild {
  const file = sharedBuildFile();
  if (!fs.existsSync(file)) {
    throw new Error(
      `${file} is missing: the e2e project's global setup (docs-site/e2e/global-setup.mjs) builds the site and ingests its docs. ` +
        'Run these tests through Jest: `npx -y pnpm@10.34.9 test --selectProjects e2e`.',
    );
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SharedSiteBuild;
}
