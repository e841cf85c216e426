import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from './chunk-document.js';
import type { ParsedDocument } from './document.js';
import { parseDocument } from './parse-document.js';

const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const fileHash = 'f'.repeat(64);

function parseFixture(file: string): ParsedDocument {
  return parseDocument({ file, text: readFileSync(`${fixturesDir}${file}`, 'utf8') });
}

/** A paragraph of distinct numbered sentences, so overlap and order can be checked. */
function sentences(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${prefix} sentence number ${index} explains one more detail of the topic.`).join(' ');
}

function unclosedFences(text: string): boolean {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (!fence) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
  }
  return open !== undefined;
}

describe('chunkDocument', () => {
  it('makes one chunk per non-empty section with the heading path line, anchor URL and order', () => {
    const chunks = chunkDocument(parseFixture('title-from-first-h1.md'), { fileHash });
    expect(chunks.map((chunk) => [chunk.heading, chunk.url, chunk.order, chunk.part])).toEqual([
      [null, '/docs/title-from-first-h1', 0, 0],
      ['Cleaning', '/docs/title-from-first-h1#cleaning', 1, 0],
    ]);
    expect(chunks[1]?.indexText).toBe('Bicycle Chains > Cleaning\n\nDegrease, rinse, dry, then oil each link.');
    expect(chunks[1]).toMatchObject({ pageUrl: '/docs/title-from-first-h1', fileHash, docId: 'title-from-first-h1', depth: 2 });
  });

  it('gives chunks stable UUIDv5 ids and SHA-256 hashes of their index text', () => {
    const first = chunkDocument(parseFixture('title-from-first-h1.md'), { fileHash });
    const second = chunkDocument(parseFixture('title-from-first-h1.md'), { fileHash });
    expect(first.map((chunk) => chunk.id)).toEqual(second.map((chunk) => chunk.id));
    expect(first[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(first.map((chunk) => chunk.id)).size).toBe(first.length);
    expect(first[0]?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('produces no chunk for empty sections, an empty file or a front-matter-only file', () => {
    expect(chunkDocument(parseFixture('empty.md'), { fileHash })).toEqual([]);
    expect(chunkDocument(parseFixture('front-matter-only.mdx'), { fileHash })).toEqual([]);
    const faq = chunkDocument(parseFixture('no-h1-starts-at-h2.md'), { fileHash });
    expect(faq.map((chunk) => chunk.heading)).toEqual(['How often should I water tomatoes?', 'Do cacti need water in winter?']);
  });

  it('splits a long section between sentences under the token limit, with overlap between parts', () => {
    const text = `# Long Page\n\n## Details\n\n${sentences('Alpha', 60)}\n\n${sentences('Beta', 60)}\n`;
    const chunks = chunkDocument(parseDocument({ file: 'long.md', text }), { fileHash, maxTokens: 200 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(200);
      expect(chunk.indexText.startsWith('Long Page > Details\n\n')).toBe(true);
      expect(chunk.anchor).toBe('details');
    }
    expect(chunks.map((chunk) => chunk.part)).toEqual(chunks.map((_, index) => index));
    // The closing sentences of one part (about 15% of the budget) open the next one.
    const lastSentenceOfFirst =
      /Alpha sentence number \d+ explains one more detail of the topic\.$/.exec(chunks[0]?.text ?? '')?.[0] ?? '-';
    const firstSentenceOfSecond =
      /^Alpha sentence number \d+ explains one more detail of the topic\./.exec(chunks[1]?.text ?? '')?.[0] ?? '+';
    expect(chunks[1]?.text).toContain(lastSentenceOfFirst);
    expect(chunks[0]?.text).toContain(firstSentenceOfSecond);
    expect(chunks[1]?.text.startsWith(lastSentenceOfFirst)).toBe(false);
    const allText = chunks.map((chunk) => chunk.text).join(' ');
    expect(allText).toContain('Alpha sentence number 59');
    expect(allText).toContain('Beta sentence number 59');
  });

  it('splits a section that is too long at its H4 headings first and puts the H4 at the end of the heading path', () => {
    const text = [
      '# Guide',
      '## Mistakes',
      sentences('Intro', 8),
      '#### Never mutate the input',
      sentences('Mutation', 12),
      '#### Never call the network',
      sentences('Network', 12),
    ].join('\n\n');
    const chunks = chunkDocument(parseDocument({ file: 'guide.md', text }), { fileHash, maxTokens: 300 });
    const byHeading = chunks.map((chunk) => [chunk.headingPath.join(' > '), chunk.anchor, chunk.depth]);
    expect(byHeading).toEqual([
      ['Guide > Mistakes', 'mistakes', 2],
      ['Guide > Mistakes > Never mutate the input', 'never-mutate-the-input', 4],
      ['Guide > Mistakes > Never call the network', 'never-call-the-network', 4],
    ]);
    expect(chunks[1]?.url).toBe('/docs/guide#never-mutate-the-input');
  });

  it('keeps H4 headings inside the section as text lines when the section fits', () => {
    const text = '# Guide\n\n## Small\n\nShort intro.\n\n#### Detail\n\nShort detail.\n';
    const chunks = chunkDocument(parseDocument({ file: 'guide.md', text }), { fileHash });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.text).toBe('Short intro.\n\nDetail\n\nShort detail.');
  });

  it('never cuts a code block that fits, and re-fences the parts of one that does not', () => {
    const longCode = Array.from({ length: 120 }, (_, index) => `  const value${index} = compute(${index}); // step ${index}`).join('\n');
    const text = `# Code\n\n## Big\n\nBefore.\n\n\`\`\`ts title="big.ts"\n${longCode}\n\`\`\`\n\nAfter.\n`;
    const chunks = chunkDocument(parseDocument({ file: 'code.md', text }), { fileHash, maxTokens: 256 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(256);
      expect(unclosedFences(chunk.text)).toBe(false);
    }
    const fencedParts = chunks.filter((chunk) => chunk.text.includes('```ts title="big.ts"'));
    expect(fencedParts.length).toBeGreaterThan(2);
    const allCode = chunks.map((chunk) => chunk.text).join('\n');
    for (let index = 0; index < 120; index++) expect(allCode).toContain(`const value${index} = compute(${index});`);
  });

  it('keeps admonition and tab labels in the chunk text', () => {
    const chunks = chunkDocument(parseFixture('tabs.mdx'), { fileHash });
    expect(chunks[0]?.text).toContain('npm: Run the npm command');
    expect(chunks[0]?.text).toContain('yarn: Yarn users');
  });
});
