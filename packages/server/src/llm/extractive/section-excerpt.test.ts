import type { ChunkBlock } from '@docs-chat/core';
import { DEFAULT_EXCERPT_LIMITS, excerptSection, type QuotableBlock } from './section-excerpt.js';

const quotable = (...blocks: ChunkBlock[]): QuotableBlock[] => blocks.map((block) => ({ block, source: 1 }));
const text = (value: string): ChunkBlock => ({ kind: 'text', text: value, label: null });
const small = { ...DEFAULT_EXCERPT_LIMITS, budgetChars: 120 };

describe('what to quote of a section', () => {
  it('quotes a how-to section that fits the budget whole, in reading order', () => {
    const blocks = quotable(
      text('Before you start:'),
      { kind: 'list', ordered: true, items: ['1. Install.', '2. Run.'], label: null },
      text('Done.'),
    );
    expect(excerptSection(blocks, 'how-to', new Set())).toEqual({
      markdown: 'Before you start:\n\n1. Install.\n2. Run.\n\nDone.',
      sources: [1],
      shortened: false,
    });
  });

  it('cuts a list over the budget between whole items, never inside one', () => {
    const items = Array.from({ length: 10 }, (_, index) => `${index + 1}. Step number ${index + 1} of the procedure.`);
    const excerpt = excerptSection(quotable({ kind: 'list', ordered: true, items, label: null }), 'how-to', new Set(), small);
    const lines = excerpt?.markdown.split('\n') ?? [];
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(items.length);
    expect(lines).toEqual(items.slice(0, lines.length));
    expect(excerpt?.shortened).toBe(true);
  });

  it('leaves out a sentence announcing a block that did not fit', () => {
    const code: ChunkBlock = { kind: 'code', language: 'js', meta: null, code: 'x'.repeat(110) };
    const excerpt = excerptSection(quotable(text('The first step matters.'), text('Write this:'), code), 'how-to', new Set(), small);
    expect(excerpt?.markdown).toBe('The first step matters.');
  });

  it('has nothing to quote when all the section holds is a sentence announcing what it lacks', () => {
    expect(excerptSection(quotable(text('Three rules apply:')), 'concept', new Set())).toBeNull();
  });
});
