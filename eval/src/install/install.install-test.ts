/**
 * Installs docs-chat as a user does, from the packed packages with plain npm, outside the workspace:
 * a fresh Docusaurus 3 site gets the plugin and builds with the widget on every page; a bad
 * `serverUrl` fails that build saying what to set; in another folder `npm install` of the server
 * gives a `docs-chat` command that indexes the site's docs and answers a question over HTTP with no
 * API key (extractive answer). Slow by nature (real npm installs and a Docusaurus build), so it is
 * its own Jest project (`install`), bounded by the timeouts below.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createChatStreamParser, type ChatStreamEvent } from '@docs-chat/protocol';
import {
  docusaurusBuild,
  freePort,
  htmlPages,
  packagesOnlyReachableFrom,
  npmInstall,
  packWorkspace,
  run,
  tempDir,
  writeFreshSite,
  writeServerFolder,
  type PublishedFolder,
} from './packaged-install.js';

const MINUTE = 60_000;
let root: string;
let tarballs: Record<PublishedFolder, string>;
let siteDir: string;
let serverDir: string;
let server: ChildProcess | undefined;

beforeAll(async () => {
  root = tempDir('install');
  fs.mkdirSync(path.join(root, 'packs'));
  tarballs = await packWorkspace(path.join(root, 'packs'));
  siteDir = path.join(root, 'site');
  serverDir = path.join(root, 'server');
  writeFreshSite(siteDir, { tarballs, pluginOptions: "{ serverUrl: 'http://localhost:8000', hideLauncherOn: ['/configuring'] }" });
  writeServerFolder(serverDir, tarballs);
  // The two installs do not share files; run them side by side to keep the test shorter. Registry metadata npm
  // already holds is used without asking again (--prefer-offline): what is tested is our packages, and on a machine
  // that installed them before this takes the test from 164-173 s to 128 s (CI's time budget); a fresh machine
  // still fetches everything.
  await Promise.all([npmInstall(siteDir, ['--prefer-offline']), npmInstall(serverDir, ['--prefer-offline'])]);
}, 30 * MINUTE);

afterAll(() => {
  server?.kill('SIGTERM');
  if (root && !process.env.KEEP_INSTALL_TEST) fs.rmSync(root, { recursive: true, force: true });
});

describe('the plugin installed from its tarball in a fresh Docusaurus site', () => {
  it('adds only React-free helpers to the site, no LLM SDK, vector store client or markdown parser', () => {
    // Docusaurus itself brings remark and unified; what counts is what only the plugin brings.
    const added = packagesOnlyReachableFrom(siteDir, '@docs-chat/docusaurus-plugin');
    expect(added).toContain('@docs-chat/protocol');
    const heavy = added.filter((name) =>
      /^(@google\/genai|openai|@qdrant\/|@docs-chat\/(core|server)$|remark|unified$|mdast|micromark|react$|react-dom$)/.test(name),
    );
    expect(heavy).toEqual([]);
  });

  it(
    'builds, with the widget on every page and its assets in the build',
    async () => {
      const build = await docusaurusBuild(siteDir);
      expect({ code: build.code, stderr: build.code === 0 ? '' : build.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
      const buildDir = path.join(siteDir, 'build');
      const pages = htmlPages(buildDir).filter((page) => !page.endsWith('404.html'));
      expect(pages.length).toBeGreaterThanOrEqual(3);
      for (const page of pages) {
        // The widget's launcher and the navbar search button are server-rendered into each page by the plugin's theme.
        // On the page the site lists in hideLauncherOn the launcher is rendered hidden, so it never flashes there.
        const html = fs.readFileSync(page, 'utf8');
        const launcherTag = /<button[^>]*docs-chat-launcher[^>]*>/.exec(html)?.[0] ?? '';
        const relative = path.relative(buildDir, page);
        expect({
          page: relative,
          launcher: launcherTag !== '',
          launcherHidden: / hidden=""/.test(launcherTag),
          search: html.includes('docs-chat-search-button'),
        }).toEqual({
          page: relative,
          launcher: true,
          launcherHidden: relative === path.join('configuring', 'index.html'),
          search: true,
        });
      }
      // The static search index the plugin writes at build, for search without the server.
      expect(fs.existsSync(path.join(buildDir, 'docs-chat', 'search-manifest.json'))).toBe(true);
      // The widget's code (the stream client sends the protocol header) and its options (the server URL) are bundled.
      const scripts = fs
        .readdirSync(path.join(buildDir, 'assets', 'js'))
        .map((file) => fs.readFileSync(path.join(buildDir, 'assets', 'js', file), 'utf8'));
      expect({
        serverUrl: scripts.some((script) => script.includes('http://localhost:8000')),
        client: scripts.some((script) => script.includes('x-docs-chat-protocol')),
      }).toEqual({ serverUrl: true, client: true });
    },
    20 * MINUTE,
  );

  it(
    'fails the build with what to set when serverUrl is malformed',
    async () => {
      const config = path.join(siteDir, 'docusaurus.config.mjs');
      const good = fs.readFileSync(config, 'utf8');
      try {
        fs.writeFileSync(config, good.replace("serverUrl: 'http://localhost:8000'", "serverUrl: 'localhost:8000'"));
        const build = await docusaurusBuild(siteDir);
        expect(build.code).not.toBe(0);
        expect(build.stderr + build.stdout).toMatch(/"serverUrl" must (be an absolute http\(s\) URL|start with http:\/\/ or https:\/\/)/);
      } finally {
        fs.writeFileSync(config, good);
      }
    },
    10 * MINUTE,
  );
});

describe('the server installed from its tarball with npm', () => {
  const docsChat = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    run('npx', ['--no-install', 'docs-chat', ...args], {
      cwd: serverDir,
      env: { DATA_DIR: path.join(serverDir, 'data'), ...env },
      timeoutMs: 10 * MINUTE,
    });

  it(
    'refuses an unknown command and a DATA_DIR whose parent is missing, in one line with exit code 2',
    async () => {
      const unknown = await docsChat(['frobnicate']);
      expect(unknown.code).toBe(2);
      expect(
        unknown.stderr
          .trim()
          .split('\n')
          .filter((line) => line.startsWith('docs-chat:')),
      ).toEqual([expect.stringContaining('unknown command "frobnicate"')]);
      const missing = await docsChat(['ingest'], { DATA_DIR: path.join(serverDir, 'no-such-folder', 'data') });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no-such-folder does not exist');
    },
    5 * MINUTE,
  );

  it('tells a Node.js older than its engines which version it needs instead of failing on syntax', async () => {
    // An older Node, as far as the bin shim can tell: process.versions says 18.
    const preload = path.join(serverDir, 'pretend-node-18.cjs');
    fs.writeFileSync(preload, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.20.4' } });\n");
    const result = await run(process.execPath, ['--require', preload, path.join(serverDir, 'node_modules', '.bin', 'docs-chat'), 'serve'], {
      cwd: serverDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Node.js 20.19 or newer is required; this is Node.js 18.20.4');
  });

  it(
    'indexes the site docs and answers a question over HTTP without an API key',
    async () => {
      const ingest = await docsChat(['ingest', '--docs', path.join(siteDir, 'docs')]);
      expect({ code: ingest.code, stderr: ingest.code === 0 ? '' : ingest.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
      expect(ingest.stdout).toMatch(/Files: 3 processed/);

      const port = await freePort();
      // The installed `docs-chat` command itself (what `npx docs-chat serve` runs), so that stopping it stops the server.
      server = spawn(process.execPath, [path.join(serverDir, 'node_modules', '.bin', 'docs-chat'), 'serve'], {
        cwd: serverDir,
        env: { ...process.env, DATA_DIR: path.join(serverDir, 'data'), PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let serverErrors = '';
      server.stderr!.on('data', (chunk: Buffer) => (serverErrors += chunk.toString()));
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 5 * MINUTE;
      for (;;) {
        const health = await fetch(`${url}/health`).catch(() => undefined);
        if (health?.status === 200) break;
        if (Date.now() > deadline || server.exitCode !== null)
          throw new Error(`docs-chat serve did not become healthy: ${serverErrors.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      const response = await fetch(`${url}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message: 'How do I change the port Lantern listens on?', mode: 'general' }),
      });
      expect(response.status).toBe(200);
      const events: ChatStreamEvent[] = [];
      const parser = createChatStreamParser((event) => events.push(event));
      parser.push(await response.text());
      parser.end();
      const answer = events.flatMap((event) => (event.type === 'token' ? [event.content] : [])).join('');
      expect(events.at(-1)?.type).toBe('done');
      expect(answer).toContain('LANTERN_PORT');
    },
    10 * MINUTE,
  );
});
