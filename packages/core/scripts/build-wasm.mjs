// Compiles src/stores/dense-scan.wat into src/stores/dense-scan-wasm.ts (the module's bytes, base64).
// Usage: pnpm --filter @docs-chat/core build:wasm   (add --check to fail when the committed bytes are stale)
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import createWabt from 'wabt';

const source = fileURLToPath(new URL('../src/stores/dense-scan.wat', import.meta.url));
const target = fileURLToPath(new URL('../src/stores/dense-scan-wasm.ts', import.meta.url));

export async function compileDenseScan() {
  const wabt = await createWabt();
  const module = wabt.parseWat('dense-scan.wat', await readFile(source, 'utf8'), { simd: true });
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

export function renderModule(base64) {
  return `// Generated from dense-scan.wat by scripts/build-wasm.mjs: do not edit by hand.
export const DENSE_SCAN_WASM_BASE64 =
  '${base64}';
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rendered = renderModule(await compileDenseScan());
  if (process.argv.includes('--check')) {
    const current = await readFile(target, 'utf8').catch(() => '');
    if (current !== rendered) {
      console.error('src/stores/dense-scan-wasm.ts is stale: run `pnpm --filter @docs-chat/core build:wasm`.');
      process.exit(1);
    }
  } else {
    await writeFile(target, rendered);
  }
}
