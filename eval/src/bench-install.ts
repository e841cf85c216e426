/**
 * What installing docs-chat costs a user, measured on the packed packages with plain npm outside
 * the workspace (issue 14 part 2).
 *
 *   node --import tsx eval/src/bench-install.ts [--json] [--rounds 2]
 *
 * Method:
 * 1. Build and pack the published packages (`pnpm build`, `pnpm pack`), as the install test does.
 * 2. Write the same fresh Docusaurus 3 site twice in temp folders, without and with the plugin
 *    (its tarball; npm overrides send @docs-chat/protocol to its tarball too). Time `npm install`
 *    plus `docusaurus build` for each; rounds alternate without/with so both see the same npm cache
 *    (the first round warms it and is reported apart; later rounds are the median).
 * 3. Plugin dependencies added = packages in the plugin site's package-lock.json reachable from
 *    the plugin and from no other dependency of the site (the plugin itself excluded).
 * 4. Server install size = bytes of the files under node_modules after `npm install` of the server
 *    tarball, once with --omit=optional (no neural embedder) and once as npm installs by default.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  directorySize,
  docusaurusBuild,
  packagesOnlyReachableFrom,
  npmInstall,
  packWorkspace,
  tempDir,
  writeFreshSite,
  writeServerFolder,
} from './install/packaged-install.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const roundsIndex = args.indexOf('--rounds');
const rounds = roundsIndex >= 0 ? Math.max(1, Number(args[roundsIndex + 1])) : 2;
const log = (line: string): void => {
  if (!json) process.stderr.write(`${line}\n`);
};

const root = tempDir('bench-install');
const packs = path.join(root, 'packs');
fs.mkdirSync(packs);
log(`building and packing into ${packs}`);
const tarballs = await packWorkspace(packs);

async function siteRun(label: string, withPlugin: boolean): Promise<{ installMs: number; buildMs: number; dir: string }> {
  const dir = path.join(root, label);
  writeFreshSite(dir, withPlugin ? { tarballs, pluginOptions: "{ serverUrl: 'http://localhost:8000' }" } : {});
  const install = await npmInstall(dir);
  const build = await docusaurusBuild(dir);
  if (build.code !== 0) throw new Error(`docusaurus build failed in ${dir}:\n${build.stderr.slice(-3000)}`);
  log(`${label}: install ${(install.ms / 1000).toFixed(1)} s, build ${(build.ms / 1000).toFixed(1)} s`);
  return { installMs: install.ms, buildMs: build.ms, dir };
}

const without: Array<{ installMs: number; buildMs: number; dir: string }> = [];
const withPlugin: Array<{ installMs: number; buildMs: number; dir: string }> = [];
for (let round = 0; round < rounds; round++) {
  without.push(await siteRun(`site-without-${round}`, false));
  withPlugin.push(await siteRun(`site-with-${round}`, true));
}

const added = packagesOnlyReachableFrom(withPlugin[0]!.dir, '@docs-chat/docusaurus-plugin');

const serverLean = path.join(root, 'server-lean');
writeServerFolder(serverLean, tarballs);
await npmInstall(serverLean, ['--omit=optional']);
const serverFull = path.join(root, 'server-full');
writeServerFolder(serverFull, tarballs);
await npmInstall(serverFull);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const measured = (runs: typeof without) => (runs.length > 1 ? runs.slice(1) : runs).map((run) => run.installMs + run.buildMs);
const withoutMs = median(measured(without));
const withMs = median(measured(withPlugin));
const mb = (bytes: number): number => Math.round((bytes / 1e6) * 10) / 10;
const result = {
  node: process.version,
  rounds,
  tarballs: Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, fs.statSync(file).size])),
  pluginDependenciesAdded: added.length,
  pluginDependenciesAddedList: added,
  heavyInSite: added.filter((entry) => /^(@google\/genai|openai|@qdrant\/|remark|unified|@docs-chat\/core)/.test(entry)),
  siteInstallBuildSeconds: {
    without: Math.round(withoutMs / 100) / 10,
    with: Math.round(withMs / 100) / 10,
    ratio: Math.round((withMs / withoutMs) * 100) / 100,
  },
  siteRuns: {
    without: without.map(({ installMs, buildMs }) => ({ installMs: Math.round(installMs), buildMs: Math.round(buildMs) })),
    with: withPlugin.map(({ installMs, buildMs }) => ({ installMs: Math.round(installMs), buildMs: Math.round(buildMs) })),
  },
  serverInstallMB: {
    withoutOptional: mb(directorySize(path.join(serverLean, 'node_modules'))),
    default: mb(directorySize(path.join(serverFull, 'node_modules'))),
  },
};
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  process.stdout.write(
    [
      `Plugin: ${result.pluginDependenciesAdded} production packages added to a fresh site: ${added.join(', ')}`,
      `LLM SDKs, Qdrant client, remark in the site: ${result.heavyInSite.length === 0 ? 'none' : result.heavyInSite.join(', ')}`,
      `Fresh site install+build: ${result.siteInstallBuildSeconds.without} s without the plugin, ${result.siteInstallBuildSeconds.with} s with it (${result.siteInstallBuildSeconds.ratio}x)`,
      `Server install: ${result.serverInstallMB.withoutOptional} MB without optional dependencies, ${result.serverInstallMB.default} MB with the neural embedder`,
    ].join('\n') + '\n',
  );
}
if (!process.env.KEEP_BENCH_INSTALL) fs.rmSync(root, { recursive: true, force: true });
