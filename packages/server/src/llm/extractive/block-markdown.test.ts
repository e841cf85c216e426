import { blockMarkdown, fencedCode, tableMarkdown } from './block-markdown.js';

describe('writing blocks of the docs as answer markdown', () => {
  it('writes a table stored without its delimiter row as a GFM table, escaping pipes inside cells', () => {
    expect(
      tableMarkdown(
        ['Option', 'Values'],
        [
          ['`mode`', '`a | b`'],
          ['`size`', '1'],
        ],
      ),
    ).toBe('| Option | Values |\n| --- | --- |\n| `mode` | `a \\| b` |\n| `size` | 1 |');
  });

  it('writes rows cut from their header by chunking as a list, since a table without header is not markdown', () => {
    expect(tableMarkdown(null, [['`PORT`', '`8000`', 'Port']])).toBe('- `PORT` — `8000` — Port');
  });

  it('fences code with more backticks than the code holds, so the code cannot close the fence', () => {
    expect(fencedCode('Write ```js\ncode\n``` in markdown.', 'md', null)).toBe('````md\nWrite ```js\ncode\n``` in markdown.\n````');
  });

  it("leaves out Docusaurus' highlighting comments and keeps every other line of code", () => {
    const code =
      '// highlight-start\nconst a = 1;\n// highlight-end\n{/* highlight-next-line */}\n<Tag />\n# highlight-next-line\nrun --now';
    expect(blockMarkdown({ kind: 'code', language: 'jsx', meta: null, code })).toBe('```jsx\nconst a = 1;\n<Tag />\nrun --now\n```');
  });

  it('escapes a bracketed number written in the docs so it is not read as a citation, and keeps only the text of links', () => {
    expect(blockMarkdown({ kind: 'text', text: 'See note [2] and the [guide](../guide.md); `list[1]` stays code.', label: null })).toBe(
      'See note \\[2] and the guide; `list[1]` stays code.',
    );
  });

  it('writes an admonition as a quote: the label on the line of a paragraph, above a list', () => {
    expect(blockMarkdown({ kind: 'text', text: 'Back up first.', label: { kind: 'Warning', title: null } })).toBe(
      '> **Warning:** Back up first.',
    );
    expect(blockMarkdown({ kind: 'list', ordered: false, items: ['- One', '- Two'], label: { kind: 'Tip', title: 'Shortcuts' } })).toBe(
      '> **Tip: Shortcuts**\n>\n> - One\n> - Two',
    );
  });
});
