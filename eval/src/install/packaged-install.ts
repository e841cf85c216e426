/**
 * What a user installs, outside the workspace: the published packages are built and packed
 * (`pnpm pack` rewrites `workspace:*` and applies `publishConfig`), then installed with plain npm
 * into folders under the system temp dir, where no workspace link or tsx can help.
 * Used by the install test (install.install-test.ts) and the benchmark (bench-install.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const PNPM = ['-y', 'pnpm@10.34.9'];
/** The packages a user installs, in dependency order, by folder under packages/. */
export const PUBLISHED = {
  protocol: '@docs-chat/protocol',
  core: '@docs-chat/core',
  server: '@docs-chat/server',
  'docusaurus-plugin': '@docs-chat/docusaurus-plugin',
} as const;
export type PublishedFolder = keyof typeof PUBLISHED;
/** The Docusaurus version of docs-site, so the fresh site matches what the plugin is developed against. */
export const DOCUSAURUS_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'docs-site', 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
).dependencies['@docusaurus/core']!;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 10 * 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

export async function mustRun(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${result.code}:\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-2000)}`,
    );
  return result;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), `docs-chat-${prefix}-`));
}

/** Builds the workspace packages and packs each into `dest`; returns the tarball of each package. */
export async function packWorkspace(dest: string): Promise<Record<PublishedFolder, string>> {
  await mustRun('npx', [...PNPM, 'build'], { cwd: REPO_ROOT });
  const tarballs = {} as Record<PublishedFolder, string>;
  for (const folder of Object.keys(PUBLISHED) as PublishedFolder[]) {
    const { stdout } = await mustRun('npx', [...PNPM, 'pack', '--pack-destination', dest], {
      cwd: path.join(REPO_ROOT, 'packages', folder),
    });
    const tarball = stdout.trim().split('\n').at(-1)!.trim();
    if (!fs.existsSync(tarball)) throw new Error(`pnpm pack of packages/${folder} printed no tarball path: ${stdout}`);
    tarballs[folder] = tarball;
  }
  return tarballs;
}

/**
 * npm `overrides` sending every @docs-chat package to its tarball: on the registry the plugin's and
 * the server's dependencies would resolve by version; here the packed ones stand in for them.
 */
function tarballOverrides(tarballs: Partial<Record<PublishedFolder, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(tarballs).map(([folder, file]) => [PUBLISHED[folder as PublishedFolder], `file:${file}`]));
}

export interface FreshSiteOptions {
  /** Packed packages; with `plugin` set the site uses the plugin. */
  tarballs?: Partial<Record<PublishedFolder, string>>;
  /** The plugin's options as JavaScript source; `undefined` leaves the plugin out. */
  pluginOptions?: string;
}

/** A Docusaurus 3 site as `create-docusaurus` would give, with three docs pages and no blog. */
export function writeFreshSite(dir: string, options: FreshSiteOptions = {}): void {
  const withPlugin = options.pluginOptions !== undefined;
  const dependencies: Record<string, string> = {
    '@docusaurus/core': DOCUSAURUS_VERSION,
    '@docusaurus/preset-classic': DOCUSAURUS_VERSION,
    '@mdx-js/react': '3.1.1',
    clsx: '2.1.1',
    'prism-react-renderer': '2.4.1',
    react: '19.3.1',
    'react-dom': '19.3.1',
  };
  if (withPlugin) dependencies['@docs-chat/docusaurus-plugin'] = `file:${options.tarballs!['docusaurus-plugin']}`;
  const pkg = {
    name: 'fresh-docs-site',
    private: true,
    scripts: { build: 'docusaurus build' },
    dependencies,
    // The registry lacks @docsearch/core@4.7.1, needed by @docsearch/react@4.7.1 (see shared/REFERENCE.md).
    overrides: { '@docsearch/react': '4.7.0', ...(withPlugin ? tarballOverrides({ protocol: options.tarballs!.protocol }) : {}) },
  };
  fs.mkdirSync(path.join(dir, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, 'docusaurus.config.mjs'),
    `export default {
  title: 'Lantern',
  url: 'https://lantern.example.com',
  baseUrl: '/',
  onBrokenLinks: 'throw',
  presets: [['classic', { docs: { routeBasePath: '/', sidebarPath: undefined }, blog: false, theme: {} }]],
  plugins: [${withPlugin ? `['@docs-chat/docusaurus-plugin', ${options.pluginOptions}]` : ''}],
};
`,
  );
  fs.writeFileSync(
    path.join(dir, 'docs', 'intro.md'),
    '---\nslug: /\n---\n\n# Lantern\n\nLantern is a small static file server for project documentation. See [installing](./installing.md) and [configuring](./configuring.md).\n',
  );
  fs.writeFileSync(
    path.join(dir, 'docs', 'installing.md'),
    '# Installing Lantern\n\nInstall Lantern with `npm install -g lantern-server`. It needs Node.js 20 or newer.\n\n## Starting the server\n\nRun `lantern serve ./site` and open http://localhost:4100 in the browser.\n',
  );
  fs.writeFileSync(
    path.join(dir, 'docs', 'configuring.md'),
    '# Configuring Lantern\n\n## Changing the port\n\nLantern listens on port 4100. To change the port, set the `LANTERN_PORT` environment variable, for example `LANTERN_PORT=8080 lantern serve ./site`.\n\n## Caching\n\nSet `LANTERN_CACHE_SECONDS` to the number of seconds browsers may keep a page; the default is 300.\n',
  );
}

/** The server as a user installs it: `npm install @docs-chat/server` in an empty folder. */
export function writeServerFolder(dir: string, tarballs: Record<PublishedFolder, string>): void {
  const pkg = {
    name: 'docs-chat-server-install',
    private: true,
    dependencies: { '@docs-chat/server': `file:${tarballs.server}` },
    overrides: tarballOverrides({ core: tarballs.core, protocol: tarballs.protocol }),
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

export function npmInstall(dir: string, extraArgs: string[] = []): Promise<RunResult> {
  return mustRun('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...extraArgs], { cwd: dir, timeoutMs: 15 * 60_000 });
}

export function docusaurusBuild(dir: string): Promise<RunResult> {
  return run('npx', ['--no-install', 'docusaurus', 'build'], { cwd: dir, timeoutMs: 15 * 60_000, env: { CI: 'true' } });
}

/** Installed packages per package-lock.json (every node_modules entry, nested ones too). */
export function lockedPackages(dir: string, options: { production?: boolean } = {}): Set<string> {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; version?: string }>;
  };
  return new Set(
    Object.entries(lock.packages)
      .filter(([key, entry]) => key !== '' && !(options.production && entry.dev))
      .map(([key, entry]) => `${key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version ?? 'file'}`),
  );
}

/**
 * Names of the installed packages that only `name` brings: reachable through its dependencies in the
 * site's package-lock.json and through no other dependency of the site.
 */
export function packagesOnlyReachableFrom(dir: string, name: string): string[] {
  type Entry = {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const { packages } = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, Entry> };
  const resolve = (from: string, dependency: string): string | undefined => {
    let folder = from;
    for (;;) {
      const key = `${folder ? `${folder}/` : ''}node_modules/${dependency}`;
      if (packages[key]) return key;
      if (!folder) return undefined;
      const cut = folder.lastIndexOf('/node_modules/');
      folder = cut < 0 ? '' : folder.slice(0, cut);
    }
  };
  const reachable = (roots: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = roots.map((root) => `node_modules/${root}`);
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (seen.has(key) || !packages[key]) continue;
      seen.add(key);
      const entry = packages[key];
      for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
        const found = resolve(key, dependency);
        if (found) stack.push(found);
      }
    }
    return seen;
  };
  const roots = Object.keys(packages['']?.dependencies ?? {});
  const all = reachable(roots);
  const others = reachable(roots.filter((root) => root !== name));
  return [...all]
    .filter((key) => !others.has(key) && key !== `node_modules/${name}`)
    .map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
}

export function directorySize(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) total += fs.statSync(full).size;
    }
  }
  return total;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function htmlPages(dir: string): string[] {
  const pages: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.name.endsWith('.html')) pages.push(full);
    }
  }
  return pages;
}
