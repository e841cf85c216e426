import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from './chunk-document.js';
import { parseDocument } from './parse-document.js';

const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const seeds = readdirSync(fixturesDir).map((name) => ({ name, text: readFileSync(`${fixturesDir}${name}`, 'utf8') }));

/** Small deterministic PRNG so a failing case can be replayed from its number. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const INSERTIONS = [
  '\n```js\n',
  '\n~~~~~~~\n',
  '\n:::tip Unclosed\n',
  ':::\n',
  '<Tabs>',
  '</TabItem>',
  '<Comp prop={[1, {a: "b"}',
  '{/* ',
  '*/}',
  '<!--',
  '-->',
  '\n---\ntitle: [broken\n---\n',
  '{',
  '}',
  '\n#### Sub {#dup}\n',
  '\n## Heading `code` [link](x)\n',
  '| a | b |\n| --- |\n',
  '\nimport X from "y";\n',
  '\nexport function f() {\n',
  '<details><summary>',
  'x'.repeat(20_000),
  `${'word '.repeat(3000)}\n`,
  '\u0000\uFFFD🐞',
];

function mutate(text: string, next: () => number): string {
  let result = text;
  const steps = 1 + Math.floor(next() * 4);
  for (let step = 0; step < steps; step++) {
    const at = Math.floor(next() * (result.length + 1));
    const choice = next();
    if (choice < 0.2) result = result.slice(0, at);
    else if (choice < 0.35) result = result.slice(0, at) + result.slice(at + Math.floor(next() * 200));
    else result = result.slice(0, at) + (INSERTIONS[Math.floor(next() * INSERTIONS.length)] ?? '') + result.slice(at);
  }
  return result;
}

describe('parseDocument and chunkDocument on damaged input', () => {
  it('parse and chunk 300 random mutations of the fixtures without throwing, each in bounded time, within the token limit', () => {
    const next = random(20_261_121);
    const slowest = { ms: 0, case: -1 };
    for (let index = 0; index < 300; index++) {
      const seed = seeds[index % seeds.length];
      const text = mutate(seed?.text ?? '', next);
      const started = performance.now();
      let chunks;
      try {
        chunks = chunkDocument(parseDocument({ file: `fuzz/${index}-${seed?.name ?? 'x.md'}`, text }), { fileHash: 'f'.repeat(64) });
      } catch (error) {
        throw new Error(`case ${index} (${seed?.name}) threw: ${(error as Error).message}`);
      }
      const elapsed = performance.now() - started;
      if (elapsed > slowest.ms) Object.assign(slowest, { ms: elapsed, case: index });
      for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(512);
    }
    // Generous bound: a pathological backtracking regex or a quadratic loop takes far longer.
    expect(slowest.ms).toBeLessThan(5_000);
  }, 180_000);
});
