/**
 * Worker of the markdown fuzzing check: builds input number i from a seed
 * (so a failure can be replayed), runs the core's parseDocument and
 * chunkDocument on it, and reports each input's start and end to the main
 * thread, which watches for hangs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { chunkDocument, parseDocument } from '@docs-chat/core';

const { fixturesDir, count, seed } = workerData as { fixturesDir: string; count: number; seed: number };
const fixtures = readdirSync(fixturesDir).map((name) => ({ name, text: readFileSync(`${fixturesDir}/${name}`, 'utf8') }));

function prng(start: number): () => number {
  let state = start >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** Pieces that stress the MDX and markdown grammar: unclosed constructs, deep nesting, odd characters. */
const FRAGMENTS = [
  '# ',
  '## Heading {#custom-id}\n',
  '### ',
  '\n```ts title="x.ts"\n',
  '\n```\n',
  '~~~\n',
  ':::note Title\n',
  ':::\n',
  '::::tip\n',
  '<Tabs groupId="x">',
  '<TabItem value="a" label="A">',
  '</TabItem>',
  '</Tabs>',
  '<Comp prop={{a: [1, 2, {b: "c"}]}} />',
  '<Comp prop={',
  '{/* comment */}',
  '{/* ',
  '*/}',
  '<!-- html comment -->',
  '<!--',
  'import Foo from "@site/foo";\n',
  'export const meta = {a: 1};\n',
  'export default function X() {\n',
  '---\ntitle: Fuzz\nsidebar_label: "x\n---\n',
  '---\n',
  '| a | b |\n|---|:-:|\n| 1 | 2 |\n',
  '| x |\n',
  '> quote\n> > nested\n',
  '- item\n  - sub\n    - subsub\n',
  '1. one\n2) two\n',
  '[link](http://example.com "t")',
  '[ref]: /x\n',
  '![img](a.png)',
  '<details><summary>S</summary>\n',
  '</details>\n',
  '`code`',
  '``',
  '**bold',
  '_em_',
  '~~del~~',
  '\\',
  '{',
  '}',
  '<',
  '>',
  '&amp;',
  '&#x0;',
  '\u0000',
  '\uFFFD',
  '\u202E',
  '🚢',
  'ﷺ',
  '\r\n',
  '\t',
  '    indented code\n',
  '$$\nmath\n$$\n',
  '[^1]\n\n[^1]: note\n',
  '<div>\n\n*md inside*\n\n</div>\n',
  '<br/>',
  '<script>alert(1)</script>',
  '{props.x}',
  '{1 + }',
  '[[',
  ']]',
  '((',
  '))',
  '***\n',
  '___\n',
  'word '.repeat(40),
  '\n\n',
];

function fragmentDocument(next: () => number): string {
  const parts: string[] = [];
  const length = 1 + Math.floor(next() * 60);
  for (let index = 0; index < length; index += 1) {
    const roll = next();
    if (roll < 0.05) parts.push('['.repeat(1 + Math.floor(next() * 400)));
    else if (roll < 0.08) parts.push('> '.repeat(1 + Math.floor(next() * 100)));
    else if (roll < 0.1) parts.push(`${'  '.repeat(Math.floor(next() * 60))}- deep\n`);
    else parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!);
  }
  return parts.join(next() < 0.5 ? '' : '\n');
}

function mutateFixture(next: () => number): { name: string; text: string } {
  const fixture = fixtures[Math.floor(next() * fixtures.length)]!;
  let text = fixture.text;
  const steps = 1 + Math.floor(next() * 6);
  for (let step = 0; step < steps; step += 1) {
    const at = Math.floor(next() * (text.length + 1));
    const roll = next();
    if (roll < 0.15) text = text.slice(0, at);
    else if (roll < 0.3) text = text.slice(0, at) + text.slice(at + Math.floor(next() * 300));
    else if (roll < 0.4) text = text.slice(0, at) + text.slice(at, at + 200).repeat(1 + Math.floor(next() * 20)) + text.slice(at);
    else if (roll < 0.5) text = text.slice(0, at) + String.fromCharCode(Math.floor(next() * 0xffff)) + text.slice(at + 1);
    else text = text.slice(0, at) + FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]! + text.slice(at);
  }
  return { name: fixture.name, text };
}

for (let index = 0; index < count; index += 1) {
  const next = prng(seed + index * 7919);
  const input = next() < 0.5 ? mutateFixture(next) : { name: next() < 0.5 ? 'fuzz.mdx' : 'fuzz.md', text: fragmentDocument(next) };
  const file = `fuzz/${index}-${input.name}`;
  parentPort!.postMessage({ type: 'start', index, file });
  try {
    const document = parseDocument({ file, text: input.text });
    const chunks = chunkDocument(document, { fileHash: 'f'.repeat(64) });
    parentPort!.postMessage({ type: 'done', index, chunks: chunks.length });
  } catch (error) {
    parentPort!.postMessage({ type: 'threw', index, file, message: (error as Error).message, preview: input.text.slice(0, 200) });
  }
}
parentPort!.postMessage({ type: 'finished' });
