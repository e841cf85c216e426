// Builds one publishable package (run from its folder by its `build` script): tsc with the
// package's tsconfig.build.json into lib/, then the files tsc does not copy (worker scripts
// written as .mjs) beside the compiled modules. The workspace itself runs on the sources
// (exports point at src/); `publishConfig.exports` points the packed package at lib/.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';

const packageDir = process.cwd();
const sourceDir = join(packageDir, 'src');
const outputDir = join(packageDir, 'lib');
const require = createRequire(import.meta.url);

rmSync(outputDir, { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error(
    `${basename(packageDir)} build: tsc failed; fix the errors above and run \`npx -y pnpm@10.34.9 build\` again (it builds the packages in dependency order).`,
  );
  process.exit(result.status ?? 1);
}

function copyAssets(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === '__fixtures__') continue;
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (entry.endsWith('.mjs')) cpSync(path, join(outputDir, relative(sourceDir, path)));
  }
}
copyAssets(sourceDir);
