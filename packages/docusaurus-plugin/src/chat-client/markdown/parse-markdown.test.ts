import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { markdownToPlainText, parseMarkdown } from './parse-markdown.js';
import { isSafeHref } from './parse-inline.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('parseMarkdown', () => {
  it('keeps a fenced code block with its language', () => {
    expect(parseMarkdown(fixture('closed-code-fence.md'))).toEqual([
      { type: 'paragraph', children: [{ type: 'text', value: 'Install it:' }] },
      { type: 'code', language: 'bash', value: 'pnpm add @docs-chat/docusaurus-plugin' },
      { type: 'paragraph', children: [{ type: 'text', value: 'Then build.' }] },
    ]);
  });

  it('shows a code block that is still streaming as code up to the last token', () => {
    const blocks = parseMarkdown(fixture('open-code-fence-while-streaming.md'));
    expect(blocks.at(-1)).toEqual({ type: 'code', language: 'ts', value: 'const client = createClient({\n  url' });
  });

  it('reads a table with alignment and pads short rows to the header width', () => {
    const [table] = parseMarkdown(fixture('table-with-short-row.md'));
    expect(table).toMatchObject({ type: 'table', align: ['left', 'center', 'right'] });
    if (table?.type !== 'table') throw new Error('expected a table');
    expect(table.rows).toHaveLength(2);
    expect(table.rows[0]?.[0]).toEqual([{ type: 'inlineCode', value: 'PORT' }]);
    expect(table.rows[1]?.[2]).toEqual([]);
  });

  it('nests indented list items and keeps the start number of an ordered list', () => {
    const blocks = parseMarkdown(fixture('nested-and-numbered-lists.md'));
    expect(blocks.map((block) => block.type)).toEqual(['list', 'list']);
    const [bullets, numbers] = blocks;
    if (bullets?.type !== 'list' || numbers?.type !== 'list') throw new Error('expected lists');
    expect(bullets.ordered).toBe(false);
    expect(bullets.items).toHaveLength(3);
    expect(bullets.items[1]?.[1]).toMatchObject({ type: 'list', items: [expect.anything(), expect.anything()] });
    expect(numbers).toMatchObject({ ordered: true, start: 3 });
  });

  it('links only to web, mail and site addresses and keeps the words of unsafe links', () => {
    const [paragraph] = parseMarkdown(fixture('links-safe-and-unsafe.md'));
    if (paragraph?.type !== 'paragraph') throw new Error('expected a paragraph');
    const links = paragraph.children.filter((node) => node.type === 'link');
    expect(links.map((link) => (link.type === 'link' ? link.href : ''))).toEqual([
      '/docs/guides/ingest#re-running',
      'https://example.com/api',
      'https://docusaurus.io',
    ]);
    expect(markdownToPlainText(fixture('links-safe-and-unsafe.md'))).toContain('Avoid this and that.');
  });

  it('turns [n] and [n, m] into citations but leaves links and words alone', () => {
    const [paragraph] = parseMarkdown(fixture('citations.md'));
    if (paragraph?.type !== 'paragraph') throw new Error('expected a paragraph');
    const citations = paragraph.children
      .filter((node) => node.type === 'citation')
      .map((node) => (node.type === 'citation' ? node.index : 0));
    expect(citations).toEqual([1, 2, 3, 1, 2, 99]);
    expect(paragraph.children.some((node) => node.type === 'link' && node.href === '/docs')).toBe(true);
  });

  it('reads emphasis without breaking snake_case words, arithmetic or code spans', () => {
    const [paragraph] = parseMarkdown(fixture('emphasis-and-code-spans.md'));
    if (paragraph?.type !== 'paragraph') throw new Error('expected a paragraph');
    const types = paragraph.children.map((node) => node.type);
    expect(types.filter((type) => type === 'strong')).toHaveLength(1);
    expect(types.filter((type) => type === 'emphasis')).toHaveLength(2);
    expect(types.filter((type) => type === 'delete')).toHaveLength(1);
    expect(paragraph.children).toContainEqual({ type: 'inlineCode', value: 'code with *stars*' });
    expect(markdownToPlainText(fixture('emphasis-and-code-spans.md'))).toContain('snake_case_name');
    expect(markdownToPlainText(fixture('emphasis-and-code-spans.md'))).toContain('2 * 3 * 4 and a*literal* star.');
  });

  it('reads blockquotes, rules, headings and hard line breaks', () => {
    const blocks = parseMarkdown(fixture('quote-rule-heading-break.md'));
    expect(blocks.map((block) => block.type)).toEqual(['blockquote', 'thematicBreak', 'heading', 'paragraph']);
    expect(blocks[3]).toEqual({
      type: 'paragraph',
      children: [{ type: 'text', value: 'Line one' }, { type: 'break' }, { type: 'text', value: 'line two' }],
    });
  });

  it('keeps HTML as plain text', () => {
    const html = '<img src=x onerror="alert(1)"> <script>alert(2)</script>';
    expect(parseMarkdown(html)).toEqual([{ type: 'paragraph', children: [{ type: 'text', value: html }] }]);
  });
});

describe('isSafeHref', () => {
  it.each(['https://a.dev', 'http://a.dev', 'mailto:a@b.c', '/docs/x', '#part', './x', '../y'])('allows %s', (href) => {
    expect(isSafeHref(href)).toBe(true);
  });
  it.each(['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,x', 'vbscript:x', '//evil.example/x'])('refuses %s', (href) => {
    expect(isSafeHref(href)).toBe(false);
  });
});
