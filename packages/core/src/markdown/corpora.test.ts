import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from './chunk-document.js';
import type { Chunk, ParsedDocument } from './document.js';
import { parseDocument } from './parse-document.js';

// The evaluation corpora live beside the repository (/work/shared), never inside it.
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const corporaDir = join(repoRoot, '..', 'shared', 'corpora');

interface CorpusFile {
  corpus: string;
  file: string;
  doc: ParsedDocument;
  chunks: Chunk[];
}

function listDocs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listDocs(path) : /\.mdx?$/.test(name) ? [path] : [];
  });
}

const parsed = new Map<string, CorpusFile>();

function corpusFile(corpus: string, file: string): CorpusFile {
  const entry = parsed.get(`${corpus}/${file}`);
  if (!entry) throw new Error(`${corpus}/${file} was not parsed`);
  return entry;
}

/** Rows of `~` that sit between a fence's opening and closing lines. */
function squiggleRowsInsideCode(text: string): { inside: number; outside: number } {
  let inside = 0;
  let outside = 0;
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^`{3,}/.test(line)) inFence = !inFence;
    else if (/^\s*~{4,}\s*$/.test(line)) {
      if (inFence) inside++;
      else outside++;
    }
  }
  return { inside, outside };
}

describe('the two evaluation corpora', () => {
  beforeAll(() => {
    for (const corpus of ['redux', 'typescript-eslint']) {
      const root = join(corporaDir, corpus);
      if (!existsSync(root)) throw new Error(`corpus folder missing: ${root} (the shared material must sit beside the repository)`);
      for (const path of listDocs(root)) {
        const text = readFileSync(path, 'utf8');
        const file = relative(root, path).split('\\').join('/');
        const doc = parseDocument({ file, text });
        const chunks = chunkDocument(doc, { fileHash: createHash('sha256').update(text).digest('hex') });
        parsed.set(`${corpus}/${file}`, { corpus, file, doc, chunks });
      }
    }
  }, 180_000);

  it('parses and chunks every page of both corpora with MDX, and every chunk stays within 512 tokens', () => {
    expect(parsed.size).toBe(86 + 53);
    const all = [...parsed.values()];
    expect(all.filter((entry) => entry.doc.usedFallbackParser).map((entry) => entry.file)).toEqual([]);
    const oversized = all.flatMap((entry) =>
      entry.chunks.filter((chunk) => chunk.tokens > 512).map((chunk) => `${entry.file} ${chunk.url}`),
    );
    expect(oversized).toEqual([]);
  });

  it('leaves no chunk with an unclosed code fence', () => {
    const unbalanced = [...parsed.values()].flatMap((entry) =>
      entry.chunks
        .filter((chunk) => (chunk.text.match(/^`{3,}/gm) ?? []).length % 2 !== 0)
        .map((chunk) => `${entry.file} part ${chunk.part}`),
    );
    expect(unbalanced).toEqual([]);
  });

  it('gives every chunk of a page a distinct id', () => {
    for (const entry of parsed.values()) expect(new Set(entry.chunks.map((chunk) => chunk.id)).size).toBe(entry.chunks.length);
  });

  it('keeps the exported helper function of the Releases page out of the text', () => {
    const text = corpusFile('typescript-eslint', 'users/Releases.mdx')
      .chunks.map((chunk) => chunk.text)
      .join('\n');
    expect(text).not.toMatch(/useIsBrowser|arbitraryMonday|toLocaleTimeString/);
    expect(text.length).toBeGreaterThan(500);
  });

  it('finds the maintainer names that exist only inside JSX props on the Team page', () => {
    const chunks = corpusFile('typescript-eslint', 'maintenance/Team.mdx').chunks;
    const maintainers = chunks.find((chunk) => chunk.heading === 'Maintainers');
    for (const name of ['Brad Zacher', 'James Henry', 'Josh Goldberg', 'Kirk Waiblinger']) expect(maintainers?.text).toContain(name);
    expect(chunks.map((chunk) => chunk.text).join('\n')).not.toContain('https://');
  });

  it('keeps the squiggly underline rows of the JavaScript FAQ inside their code blocks', () => {
    const chunks = corpusFile('typescript-eslint', 'troubleshooting/faqs/JavaScript.mdx').chunks;
    const counts = chunks.map((chunk) => squiggleRowsInsideCode(chunk.text));
    expect(counts.reduce((sum, count) => sum + count.inside, 0)).toBeGreaterThanOrEqual(3);
    expect(counts.reduce((sum, count) => sum + count.outside, 0)).toBe(0);
  });

  it('keeps the text of the Next.js page admonition that is never closed', () => {
    const chunks = corpusFile('redux', 'usage/nextjs.mdx').chunks;
    expect(chunks.some((chunk) => chunk.text.includes('Tip: Summary\n- '))).toBe(true);
    const last = chunks.at(-1);
    expect(last?.heading).toBe("What's Next?");
    expect(last?.text.length).toBeGreaterThan(50);
  });

  it('suffixes the repeated "Further Information" anchors of the immutable data FAQ as the built page does', () => {
    const { doc } = corpusFile('redux', 'faq/ImmutableData.md');
    // One is spelled "Further information" and 16 "Further Information"; case does not matter to the slugger.
    const anchors = doc.sections.flatMap((section) =>
      section.blocks.flatMap((block) =>
        block.kind === 'heading' && block.text.toLowerCase() === 'further information' ? [block.anchor] : [],
      ),
    );
    expect(anchors).toHaveLength(17);
    expect(anchors.slice(0, 4)).toEqual(['further-information', 'further-information-1', 'further-information-2', 'further-information-3']);
    expect(new Set(anchors).size).toBe(anchors.length);
  });

  it('puts an H4 of a long section at the end of the heading path of its chunk', () => {
    const chunks = corpusFile('redux', 'usage/Troubleshooting.md').chunks;
    const mutate = chunks.find((chunk) => chunk.heading === 'Never mutate reducer arguments');
    expect(mutate?.headingPath).toEqual(['Troubleshooting', 'Nothing happens when I dispatch an action', 'Never mutate reducer arguments']);
    expect(mutate?.url).toBe('/docs/usage/troubleshooting#never-mutate-reducer-arguments');
  });

  // Expected URLs come from running @docusaurus/plugin-content-docs 3.10.2's processDocMetadata on these files.
  it.each([
    ['redux', 'api/Store.md', 'api/store', '/docs/api/store'],
    ['redux', 'faq/ImmutableData.md', 'faq/immutable-data', '/docs/faq/immutable-data'],
    ['redux', 'introduction/README.md', 'introduction/README', '/docs/introduction/'],
    ['redux', 'style-guide/style-guide.md', 'style-guide/style-guide', '/docs/style-guide/'],
    ['redux', 'tutorials/tutorials-index.md', 'tutorials/tutorials-index', '/docs/tutorials/index'],
    ['redux', 'usage/index.md', 'usage/index', '/docs/usage/'],
    ['typescript-eslint', 'getting-started/Quickstart.mdx', 'getting-started/quickstart', '/docs/getting-started/'],
    [
      'typescript-eslint',
      'troubleshooting/typed-linting/index.mdx',
      'troubleshooting/typed-linting/index',
      '/docs/troubleshooting/typed-linting',
    ],
    ['typescript-eslint', 'users/Shared_Configurations.mdx', 'users/configs', '/docs/users/configs'],
    ['typescript-eslint', 'users/index.mdx', 'users/index', '/docs/users/'],
  ])('routes %s %s to the URL Docusaurus gives it', (corpus, file, docId, url) => {
    expect(corpusFile(corpus, file).doc).toMatchObject({ url });
    expect(corpusFile(corpus, file).doc.docId).toBe(docId);
  });
});
