import fs from 'node:fs';
import path from 'node:path';
import { runNode } from './child-process.js';
import { PLUGIN_DIR, SITE_DIR } from './paths.js';

export interface SiteBuild {
  /** The copy of docs-site that was built (its docs folder is what the ingest reads). */
  siteDir: string;
  docsDir: string;
  /** Static output of `docusaurus build`. */
  buildDir: string;
  /** Exact permalinks the plugin wrote into the build; null when built without the plugin. */
  permalinksFile: string | null;
}

export interface BuildSiteOptions {
  /** Empty folder that receives the site copy, the build and its log. */
  workDir: string;
  /** Chat server URL baked into the build (the site reads DOCS_CHAT_SERVER_URL at build time). */
  serverUrl: string;
  /** false builds the site without the docs-chat plugin (DOCS_CHAT_PLUGIN=off). */
  withPlugin?: boolean;
  /** The site's baseUrl (DOCS_SITE_BASE_URL), e.g. "/handbook/"; "/" by default. */
  baseUrl?: string;
  /** The site's trailingSlash setting (DOCS_SITE_TRAILING_SLASH); unset by default. */
  trailingSlash?: boolean;
  timeoutMs?: number;
}

const SKIPPED_IN_COPY = new Set(['node_modules', 'build', '.docusaurus', 'e2e']);

function newestSourceTime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === '__fixtures__' || entry.name === 'test-doubles') continue;
      newest = Math.max(newest, newestSourceTime(full));
    } else if (!/\.test\.tsx?$/.test(entry.name)) {
      newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  }
  return newest;
}

function stylesheetsOf(dir: string, root = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return stylesheetsOf(full, root);
    return entry.name.endsWith('.css') ? [path.relative(root, full)] : [];
  });
}

/**
 * Docusaurus loads the plugin from its compiled lib/ (built on install by `prepare`).
 * Rebuild it when a source is newer, so the suite never tests yesterday's widget.
 */
export async function ensurePluginCompiled(logFile: string): Promise<void> {
  const sourceDir = path.join(PLUGIN_DIR, 'src');
  const libDir = path.join(PLUGIN_DIR, 'lib');
  const entry = path.join(libDir, 'index.js');
  const compiledAt = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
  // A build that stopped half-way (tsc output without the CSS modules copied beside it) is no build.
  const complete = stylesheetsOf(sourceDir).every((stylesheet) => fs.existsSync(path.join(libDir, stylesheet)));
  if (complete && compiledAt >= newestSourceTime(sourceDir)) return;
  await runNode(
    'the docusaurus-plugin build (packages/docusaurus-plugin/scripts/build.mjs)',
    [path.join(PLUGIN_DIR, 'scripts', 'build.mjs')],
    {
      cwd: PLUGIN_DIR,
      env: process.env,
      logFile,
      timeoutMs: 180_000,
    },
  );
}

/**
 * Builds docs-site into `workDir`. The site is copied first (sources only; its
 * node_modules linked) so that the build's generated files never collide with
 * a developer's own `pnpm build` or `pnpm demo` in docs-site/.
 */
export async function buildDocsSite(options: BuildSiteOptions): Promise<SiteBuild> {
  const withPlugin = options.withPlugin ?? true;
  fs.mkdirSync(options.workDir, { recursive: true });
  const logFile = path.join(options.workDir, 'build.log');
  fs.writeFileSync(logFile, '');
  await ensurePluginCompiled(logFile);

  const siteDir = path.join(options.workDir, 'site');
  // The output stays inside the copy: docs-site's package.json (no "type": "module") must govern the
  // server bundle Docusaurus writes and loads from there, as it does for a normal `pnpm build`.
  const buildDir = path.join(siteDir, 'build');
  fs.rmSync(siteDir, { recursive: true, force: true });
  fs.cpSync(SITE_DIR, siteDir, {
    recursive: true,
    filter: (source) => source === SITE_DIR || !SKIPPED_IN_COPY.has(path.relative(SITE_DIR, source).split(path.sep)[0] ?? ''),
  });
  fs.symlinkSync(path.join(SITE_DIR, 'node_modules'), path.join(siteDir, 'node_modules'), 'dir');

  const docusaurus = path.join(SITE_DIR, 'node_modules', '@docusaurus', 'core', 'bin', 'docusaurus.mjs');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCS_CHAT_SERVER_URL: options.serverUrl,
    DOCS_CHAT_PLUGIN: withPlugin ? 'on' : 'off',
    // The French pages double the build time and hold nothing these tests read; the versioned fixture site
    // (site-ingest.test.ts) covers locales.
    DOCS_SITE_LOCALES: 'en',
    ...(options.baseUrl ? { DOCS_SITE_BASE_URL: options.baseUrl } : {}),
    ...(options.trailingSlash === undefined ? {} : { DOCS_SITE_TRAILING_SLASH: String(options.trailingSlash) }),
  };
  delete env.NODE_OPTIONS; // Jest's --experimental-vm-modules has no business in the build.
  const variant = [
    options.baseUrl && `baseUrl ${options.baseUrl}`,
    options.trailingSlash !== undefined && `trailingSlash ${options.trailingSlash}`,
  ]
    .filter(Boolean)
    .join(', ');
  await runNode(
    `docusaurus build of docs-site (${withPlugin ? 'with' : 'without'} the docs-chat plugin${variant ? `, ${variant}` : ''})`,
    [docusaurus, 'build', '--out-dir', buildDir],
    {
      cwd: siteDir,
      env,
      logFile,
      timeoutMs: options.timeoutMs ?? 300_000,
    },
  );
  const permalinksFile = path.join(buildDir, 'docs-chat-permalinks.json');
  return { siteDir, docsDir: path.join(siteDir, 'docs'), buildDir, permalinksFile: fs.existsSync(permalinksFile) ? permalinksFile : null };
}
