import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute paths the end-to-end suite and the bundle benchmark share. */
export const SITE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO_ROOT = path.resolve(SITE_DIR, '..');
export const PLUGIN_DIR = path.join(REPO_ROOT, 'packages', 'docusaurus-plugin');
export const SERVER_CLI = path.join(REPO_ROOT, 'packages', 'server', 'src', 'cli.ts');
/** tsx's ESM loader, passed to `node --import` by absolute URL so child processes may run from any directory. */
export const TSX_LOADER = path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs');
/** Screenshots, the chat server's log and the pointer to the shared site build (gitignored test artifacts). */
export const E2E_ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts', 'e2e');
/**
 * This run's folder for the site copy, its build, the index and the build and ingest logs, made by
 * the global setup (global-setup.mjs) and named in DOCS_CHAT_E2E_WORK_DIR. Outside the repository on
 * purpose: Jest crawls the repository, and a copy of docs-site there would be a second "docs-site" package.
 */
export function e2eWorkDir(): string {
  const workDir = process.env.DOCS_CHAT_E2E_WORK_DIR;
  if (!workDir) {
    throw new Error(
      "DOCS_CHAT_E2E_WORK_DIR is not set: the e2e project's global setup (docs-site/e2e/global-setup.mjs) sets it. " +
        'Run these tests through Jest: `npx -y pnpm@10.34.9 test --selectProjects e2e`.',
    );
  }
  return workDir;
}
