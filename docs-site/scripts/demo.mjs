#!/usr/bin/env node
// The demo behind `pnpm demo`: builds this site (the plugin writes the exact
// permalinks of every page), ingests the whole site on the configured defaults
// (offline: the neural embedder and the embedded store), then runs the chat server
// on :8000 and the built site on :3000 until Ctrl+C stops both.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const siteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rootDir = path.resolve(siteDir, '..');
const cli = path.join(rootDir, 'packages', 'server', 'src', 'cli.ts');
const tsx = path.join(rootDir, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const docusaurus = path.join(siteDir, 'node_modules', '@docusaurus', 'core', 'bin', 'docusaurus.mjs');
const serverPort = process.env.PORT ?? '8000';
const sitePort = process.env.DOCS_SITE_PORT ?? '3000';

const children = new Set();
let stopping = false;

function run(label, args, options = {}) {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? rootDir,
    stdio: options.stdio ?? 'inherit',
    env: { ...process.env, ...options.env },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.label = label;
  return child;
}

function finished(child) {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${child.label} ${signal ? `was stopped by ${signal}` : `exited with code ${code}`}`)),
    );
  });
}

async function stop(code) {
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nStopping the demo…\n');
  for (const child of children) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const child of children) child.kill('SIGKILL');
  }, 8000);
  deadline.unref();
  await Promise.all([...children].map((child) => new Promise((resolve) => child.once('exit', resolve))));
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

async function main() {
  const serverUrl = process.env.DOCS_CHAT_SERVER_URL ?? `http://localhost:${serverPort}`;
  process.stdout.write(`1/3 Building the docs site (the chat widget will talk to ${serverUrl})…\n`);
  await finished(run('docs-site build', [docusaurus, 'build'], { cwd: siteDir, env: { DOCS_CHAT_SERVER_URL: serverUrl } }));

  // The whole site: the guide, its 0.1 version and its French pages, so answers keep to the reader's version and
  // language. --last-version repeats the docs plugin's lastVersion from docusaurus.config.ts.
  process.stdout.write('2/3 Ingesting docs-site (every version and locale)…\n');
  await finished(run('ingest', [tsx, cli, 'ingest', '--site', siteDir, '--last-version', 'current']));

  process.stdout.write('3/3 Starting the chat server and the site…\n');
  const server = run('chat server', [tsx, cli, 'serve'], { env: { PORT: serverPort } });
  const site = run('docs site', [docusaurus, 'serve', '--port', sitePort, '--no-open', '--host', '127.0.0.1'], { cwd: siteDir });
  for (const child of [server, site]) {
    child.on('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`${child.label} stopped unexpectedly (code ${code}); stopping the demo.\n`);
        void stop(1);
      }
    });
  }
  await waitFor(`http://127.0.0.1:${serverPort}/health`, 'the chat server');
  await waitFor(`http://127.0.0.1:${sitePort}/`, 'the docs site');
  process.stdout.write(
    `\n  docs-chat demo is running.\n  Open http://localhost:${sitePort}/docs/intro and press Ctrl+I (or the chat button) to ask a question.\n  Chat server: ${serverUrl} (try ${serverUrl}/health)\n  ${process.env.GEMINI_API_KEY ? 'Answers come from Gemini.' : 'No GEMINI_API_KEY in .env: answers quote the docs (extractive mode).'}\n  Press Ctrl+C to stop.\n\n`,
  );
}

async function waitFor(url, label) {
  const started = Date.now();
  while (Date.now() - started < 120_000) {
    if (stopping) return;
    try {
      const response = await fetch(url);
      if (response.status < 500 || response.status === 503) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${label} did not answer at ${url} within 2 minutes`);
}

main().catch((error) => {
  process.stderr.write(`demo: ${error.message}\n`);
  void stop(1);
});
