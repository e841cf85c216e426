/** @jest-environment node */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { extractPageSections, type HtmlSection } from './html-sections.js';
import { sectionParts } from './section-parts.js';

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

function textOf(section: HtmlSection | undefined): string {
  return (section?.blocks ?? []).map((block) => block.text).join('\n\n');
}

describe('sections of a built docs page', () => {
  const page = extractPageSections(fixture('classic-doc-page.html'));

  it('takes the title from the H1 and cuts the content at H2 and H3 with the ids Docusaurus rendered', () => {
    expect(page?.title).toBe('Keeping the lamp lit');
    expect(page?.sections.map(({ anchor, headings, depth }) => ({ anchor, headings, depth }))).toEqual([
      { anchor: '', headings: [], depth: 1 },
      { anchor: 'trimming-the-wick', headings: ['Trimming the wick'], depth: 2 },
      { anchor: 'wick-sizes', headings: ['Trimming the wick', 'Wick sizes'], depth: 3 },
      { anchor: 'cleaning-the-lens', headings: ['Cleaning the lens'], depth: 2 },
    ]);
  });

  it('keeps only the docs content: no navbar, sidebar, breadcrumbs, table of contents, buttons, pagination or footer', () => {
    const all = page?.sections.map(textOf).join('\n') ?? '';
    for (const outside of ['Guide', 'Home', 'On this page', 'Copy', 'Edit this page', 'Introduction', 'Copyright', 'theme=']) {
      expect(all).not.toContain(outside);
    }
    expect(textOf(page?.sections[0])).toBe('The lamp burns paraffin & must be lit half an hour before sunset.');
  });

  it('keeps code lines apart and words of table cells apart, even where the minifier dropped closing tags', () => {
    const wick = textOf(page?.sections[1]);
    expect(wick).toContain('lamp trim --length 2mm\nlamp light');
    expect(wick).toContain('Use the wickTrimmer tool:');
    const sizes = textOf(page?.sections[2]);
    expect(sizes).toMatch(/Lamp\s+Wick/);
    expect(sizes).toMatch(/First order\s+4 inch/);
    expect(sizes).toContain('Never trim a lit wick.');
  });

  it('reads a heading without its permalink sign and with its inline code', () => {
    expect(page?.sections[3]?.headings).toEqual(['Cleaning the lens']);
    expect(textOf(page?.sections[3])).toContain('Polish the lens each morning.\n\nNever use water on a warm lens.');
  });

  it('keeps the text of every tab, not only the one shown', () => {
    const tabs = extractPageSections(fixture('tabs.html'));
    expect(textOf(tabs?.sections[0])).toContain('npm install logbook');
    expect(textOf(tabs?.sections[0])).toContain('pnpm add logbook');
  });

  it('decodes entities, leaves scripts and styles out, and keeps a heading without an id in the section above', () => {
    const notes = extractPageSections(fixture('entities-and-scripts.html'));
    expect(notes?.title).toBe('Notes & errata');
    expect(textOf(notes?.sections[0])).toBe('Write <script> tags as text; 5 > 3 and café.');
    expect(notes?.sections[1]?.headings).toEqual(['中文说明']);
    expect(textOf(notes?.sections[1])).toContain('A heading without an id');
    expect(JSON.stringify(notes)).not.toContain('never indexed');
  });

  it('reads the article of a swizzled doc page that lost the theme-doc-markdown class', () => {
    const swizzled = extractPageSections(fixture('swizzled-doc-item.html'));
    expect(swizzled?.title).toBe('The fog signal');
    expect(swizzled?.sections.map((section) => section.anchor)).toEqual(['', 'starting-the-compressor']);
  });

  it('finds nothing on a page without docs content', () => {
    expect(extractPageSections(fixture('no-docs-content.html'))).toBeNull();
  });
});

describe('parts of a long section', () => {
  const [winter] = extractPageSections(fixture('long-section-with-h4.html'))?.sections ?? [];

  it('keeps a section that fits as one part', () => {
    expect(sectionParts(winter as HtmlSection, 100_000)).toHaveLength(1);
  });

  it('splits a section too long for one part at its H4 headings, each part landing on its own anchor', () => {
    const parts = sectionParts(winter as HtmlSection);
    expect(parts.map(({ anchor, headings, depth }) => ({ anchor, headings, depth }))).toEqual([
      { anchor: 'winter', headings: ['Winter'], depth: 2 },
      { anchor: 'before-the-storm', headings: ['Winter', 'Before the storm'], depth: 4 },
      { anchor: 'after-the-storm', headings: ['Winter', 'After the storm'], depth: 4 },
    ]);
  });

  it('cuts between paragraphs when a part is still too long, never inside a word', () => {
    const parts = sectionParts(winter as HtmlSection, 600);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(part.text.length + part.headings.join(' > ').length).toBeLessThanOrEqual(600);
      expect(part.text).toMatch(/^Step \d+/);
    }
  });
});
