// Compiles the plugin to lib/: Docusaurus loads plugin entry points and theme
// components from JavaScript, so the TypeScript sources are built with tsc and
// the CSS modules (which tsc ignores) are copied beside the compiled components.
// lib/theme-without-search-bar is the same theme without SearchBar, for sites
// that set `search.navbar: false` to keep their own search box (see src/index.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const sourceDir = join(packageDir, 'src');
const outputDir = join(packageDir, 'lib');
const require = createRequire(import.meta.url);

rmSync(outputDir, { recursive: true, force: true });
// In the workspace the compiled plugin imports @docs-chat/protocol, whose declarations this build
// reads from its lib/: build it first (two small modules) so `pnpm install` alone leaves both usable.
const protocolDir = join(packageDir, '..', 'protocol');
if (existsSync(join(protocolDir, 'tsconfig.build.json'))) {
  const protocol = spawnSync(process.execPath, [join(packageDir, '..', '..', 'scripts', 'build-package.mjs')], {
    cwd: protocolDir,
    stdio: 'inherit',
  });
  if (protocol.status !== 0) process.exit(protocol.status ?? 1);
}
const tscBin = require.resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tscBin, '-p', join(packageDir, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error(
    'docusaurus-plugin build: tsc failed; fix the type errors above and run `pnpm --filter @docs-chat/docusaurus-plugin build` again.',
  );
  process.exit(result.status ?? 1);
}

function copyStyles(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) copyStyles(path);
    else if (entry.endsWith('.css')) cpSync(path, join(outputDir, relative(sourceDir, path)));
  }
}
copyStyles(sourceDir);

const themeDir = join(outputDir, 'theme');
const searchBarDir = join(themeDir, 'SearchBar');
cpSync(themeDir, join(outputDir, 'theme-without-search-bar'), {
  recursive: true,
  filter: (path) => path !== searchBarDir && !path.startsWith(`${searchBarDir}/`) && !path.startsWith(`${searchBarDir}\\`),
});
