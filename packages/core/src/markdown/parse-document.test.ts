import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DocumentSection, ParsedDocument } from './document.js';
import { parseDocument } from './parse-document.js';

const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

function parseFixture(file: string): ParsedDocument {
  return parseDocument({ file, text: readFileSync(`${fixturesDir}${file}`, 'utf8') });
}

function allText(doc: ParsedDocument): string {
  return doc.sections.flatMap((section) => section.blocks.map((block) => block.text)).join('\n');
}

function section(doc: ParsedDocument, heading: string): DocumentSection {
  const found = doc.sections.find((candidate) => candidate.headingPath.at(-1) === heading);
  if (!found) throw new Error(`no section "${heading}" in ${doc.file}`);
  return found;
}

describe('parseDocument', () => {
  it('uses front matter id, title and slug, and keeps an explicit H1 out of the text when hide_title is set', () => {
    const doc = parseFixture('front-matter-fields.md');
    expect(doc).toMatchObject({
      docId: 'kettle-basics',
      title: 'Boiling Water Safely',
      url: '/docs/appliances/kettle',
      usedFallbackParser: false,
    });
    expect(doc.frontMatter).toMatchObject({ sidebar_label: 'Kettle', sidebar_position: 3, hide_title: true });
    expect(allText(doc)).not.toContain('Long Version');
    expect(section(doc, 'Descaling').headingPath).toEqual(['Boiling Water Safely', 'Descaling']);
  });

  it('handles a page with no H1 that starts at H2 with H3 questions below it', () => {
    const doc = parseFixture('no-h1-starts-at-h2.md');
    expect(doc.title).toBe('Garden FAQ');
    expect(section(doc, 'Do cacti need water in winter?')).toMatchObject({
      headingPath: ['Garden FAQ', 'Garden FAQ: Watering', 'Do cacti need water in winter?'],
      depth: 3,
      anchor: 'do-cacti-need-water-in-winter',
    });
  });

  it('takes the title from the first H1 when front matter has none', () => {
    const doc = parseFixture('title-from-first-h1.md');
    expect(doc.title).toBe('Bicycle Chains');
    expect(doc.sections[0]).toMatchObject({ headingPath: ['Bicycle Chains'], depth: 1, anchor: null });
    expect(doc.sections[0]?.blocks[0]?.text).toMatch(/^A chain stretches/);
  });

  it('falls back to the file name for a page with neither title nor H1', () => {
    expect(parseFixture('title-from-file-name.md').title).toBe('title-from-file-name');
  });

  it('drops MDX imports and exports, including a multi-line exported function and an import mid-page', () => {
    const doc = parseFixture('mdx-imports-exports.mdx');
    const text = allText(doc);
    expect(text).toContain('Visible paragraph before the middle import.');
    expect(text).toContain('Visible paragraph after the middle import.');
    expect(text).not.toMatch(/from '|export |answer = 42|ticks-marker|computeTicksSomehow|SecretClock/);
  });

  it('drops MDX and HTML comments, block and inline', () => {
    const text = allText(parseFixture('comments.mdx'));
    expect(text).toContain('After the comments, with an inline bit and more.');
    expect(text).not.toMatch(/never see|hidden|prettier/);
  });

  it('keeps each tab text prefixed with its label, falling back to the tab value', () => {
    const blocks = parseFixture('tabs.mdx').sections[0]?.blocks ?? [];
    expect(blocks.map((block) => block.text)).toEqual([
      'npm: Run the npm command from the project folder.',
      '```bash\nnpm install tool\n```',
      'yarn: Yarn users run the add command instead.',
    ]);
  });

  it('keeps visible text from JSX props, including names inside array props and template-literal titles', () => {
    const text = allText(parseFixture('jsx-visible-props.mdx'));
    expect(text).toContain('Ada Quartermaine. Keeps the ship on course.');
    expect(text).toContain('Borislav Keel. Fixes the engines.');
    expect(text).toContain('People on board');
    expect(text).toContain('Detailed Explanation: Why "Keel" Matters — The keel keeps the boat upright');
    expect(text).toContain('Mind the low ceiling.');
    expect(text).not.toMatch(/captain-id|crew-internal-id|example\.com/);
  });

  it('keeps admonition labels and titles with their text in every admonition syntax, and headings inside them', () => {
    const doc = parseFixture('admonitions.md');
    const texts = doc.sections.flatMap((current) => current.blocks.map((block) => block.text));
    expect(texts).toEqual([
      'Note: A plain note with blank lines just inside its markers.',
      'Tip: Summary — Legacy title syntax keeps its title.',
      'Info: Bracket Title — Directive label syntax keeps its title too.',
      'Warning',
      'Heading Inside A Warning',
      'Text under the heading inside the warning.',
    ]);
    expect(doc.sections[0]?.blocks[4]).toMatchObject({ kind: 'heading', depth: 4, anchor: 'heading-inside-a-warning' });
  });

  it('keeps the text of an admonition that is never closed, up to the end of the file', () => {
    const text = section(parseFixture('unclosed-admonition.mdx'), 'Last Words')
      .blocks.map((block) => block.text)
      .join('\n');
    expect(text).toContain('Tip: Recap');
    expect(text).toContain('The second recap point survives as well.');
  });

  it('keeps code fences whole with language and title, and does not read a ~~~~~ row inside them as a fence', () => {
    const blocks = parseFixture('code-fences.md').sections[0]?.blocks ?? [];
    const code = blocks.filter((block) => block.kind === 'code');
    expect(code.map((block) => block.kind === 'code' && [block.language, block.meta])).toEqual([
      ['js', 'title="src/squiggle.js"'],
      ['bash', 'npm2yarn'],
      ['ts', null],
      [null, null],
    ]);
    expect(code[0]?.text).toBe(
      '```js title="src/squiggle.js"\nconst value = compute();\n~~~~~\n// the row above marks an error, it is not a fence\nconsole.log(value);\n```',
    );
    expect(code[1]?.kind === 'code' && code[1].code).toBe('npm install shiny-package');
    expect(blocks.map((block) => block.text)).toContain('2. Then run it.');
  });

  it('renders a GFM table as readable rows', () => {
    expect(parseFixture('gfm-table.md').sections[0]?.blocks).toEqual([
      { kind: 'table', text: 'Fruit | Colour | Season\nApple | Red | Autumn\n`Lemon` | Yellow | Winter' },
    ]);
  });

  it('reads raw HTML wrappers, line breaks, iframes without spaces, details and HTML tables', () => {
    const doc = parseFixture('raw-html.md');
    expect(doc.usedFallbackParser).toBe(false);
    const text = section(doc, 'Rule Inside A Div')
      .blocks.map((block) => block.text)
      .join('\n');
    expect(text).toContain('Follow this rule everywhere.');
    expect(text).toMatch(/Link one\n+Link two/);
    expect(text).toContain('Click to expand the secret');
    expect(text).toContain('The hidden explanation sits here.');
    expect(text).toContain('Tier | Duty\nHelper | Reviews small changes');
    expect(text).not.toMatch(/iframe|class=|<br/);
  });

  it('computes heading anchors as Docusaurus does: emoji, links and code in headings, custom ids, repeats', () => {
    // Expected anchors come from running Docusaurus 3.10.2's own mdx-loader heading plugin on this fixture.
    const doc = parseFixture('tricky-headings.md');
    const anchors = doc.sections.flatMap((current) => [
      ...(current.anchor ? [current.anchor] : []),
      ...current.blocks.flatMap((block) => (block.kind === 'heading' ? [block.anchor] : [])),
    ]);
    expect(anchors).toEqual([
      '-simple-bugs',
      'how-do-i-use-dothing',
      'skipped-down-to-five',
      'my-custom-anchor',
      'further-reading',
      'further-reading-1',
      'further-reading-2',
      'whats-t-for',
    ]);
    expect(doc.sections.map((current) => current.headingPath.at(-1))).toEqual([
      'Tricky Headings',
      '🐞 "Simple" Bugs',
      'How do I use doThing()?',
      'Explicit Anchor',
      "What's <T> for?",
    ]);
  });

  it('keeps a time in a heading whole, in its anchor and its text, as Docusaurus 3 reads it', () => {
    // The anchor is the id Docusaurus 3.10.2 gave this heading in a build of docs-site: a colon followed by a
    // digit is text there, not a directive (remark-directive 4 would read `:00` and `:30` as directives).
    const doc = parseDocument({ file: 'ops.md', text: '# Ops\n\n## Maintenance (2026-12-01, 05:00–06:30 UTC)\n\nThe window.\n' });
    expect(doc.sections[1]).toMatchObject({
      anchor: 'maintenance-2026-12-01-05000630-utc',
      headingPath: ['Ops', 'Maintenance (2026-12-01, 05:00–06:30 UTC)'],
    });
  });

  it('falls back to a tolerant markdown parse for a file MDX cannot read, and says so', () => {
    const doc = parseFixture('invalid-mdx.md');
    expect(doc.usedFallbackParser).toBe(true);
    expect(allText(doc)).toContain('Love is <3 and braces { are unbalanced here.');
    expect(allText(doc)).toContain('Text inside an html block.');
    expect(section(doc, 'Still A Section').anchor).toBe('still-a-section');
  });

  it('prefers a permalink from a site build over the computed URL', () => {
    const doc = parseDocument({ file: 'a/b.md', text: '# B\n', permalink: '/handbook/b-page' });
    expect(doc.url).toBe('/handbook/b-page');
  });

  it('parses an empty file and a front-matter-only file into empty sections', () => {
    for (const file of ['empty.md', 'front-matter-only.mdx']) {
      const doc = parseFixture(file);
      expect(doc.sections.every((current) => current.blocks.length === 0)).toBe(true);
    }
    expect(parseFixture('front-matter-only.mdx').title).toBe('Governance');
  });
});
