import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readChunkBlocks } from './chunk-blocks.js';
import { chunkDocument } from './chunk-document.js';
import { parseDocument } from './parse-document.js';

const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

function chunkTexts(file: string, maxTokens?: number): string[] {
  const doc = parseDocument({ file, text: readFileSync(`${fixturesDir}${file}`, 'utf8') });
  return chunkDocument(doc, { fileHash: 'f'.repeat(64), ...(maxTokens === undefined ? {} : { maxTokens }) }).map((chunk) => chunk.text);
}

describe('readChunkBlocks', () => {
  it('reads back every kind of block the chunker wrote, in reading order', () => {
    const [text] = chunkTexts('every-block-kind.md');
    expect(readChunkBlocks(text ?? '')).toEqual([
      { kind: 'text', text: 'Lay the hose along each bed before planting.', label: null },
      { kind: 'list', ordered: true, items: ['1. Unroll the drip line along the bed.', '2. Connect it to the tap:'], label: null },
      { kind: 'code', language: 'bash', meta: 'title="Terminal"', code: 'garden connect --tap north\n\ngarden check' },
      { kind: 'list', ordered: true, items: ['3. Open the tap halfway.\nWait for every emitter to drip.'], label: null },
      {
        kind: 'list',
        ordered: false,
        items: ['- Emitters:', '- Use 2 L/h emitters for tomatoes.', '- Use 1 L/h emitters for herbs.', '- Filters need cleaning monthly.'],
        label: null,
      },
      {
        kind: 'table',
        header: ['Plant', 'Litres per day', 'Note'],
        rows: [
          ['Tomato', '2', '`drip | spray` both work'],
          ['Basil', '0.5', 'morning only'],
        ],
        label: null,
      },
      { kind: 'text', text: 'Water early in the morning, when less evaporates.', label: { kind: 'Tip', title: 'Save water' } },
      {
        kind: 'list',
        ordered: false,
        items: ['- Never leave the tap fully open.', '- Check for leaks weekly.'],
        label: { kind: 'Warning', title: null },
      },
      { kind: 'text', text: '', label: { kind: 'Note', title: null } },
      { kind: 'code', language: 'bash', meta: null, code: 'garden valve --close' },
    ]);
  });

  it('keeps the items of one list together across the blank lines the chunker puts between them, and starts a new list where the numbers restart', () => {
    expect(readChunkBlocks('1. One\n\n2. Two\n\n1. Again')).toEqual([
      { kind: 'list', ordered: true, items: ['1. One', '2. Two'], label: null },
      { kind: 'list', ordered: true, items: ['1. Again'], label: null },
    ]);
  });

  it('puts an indented item under the item before it', () => {
    expect(readChunkBlocks('- Parent\n\n  - Child\n\n- Sibling')).toEqual([
      { kind: 'list', ordered: false, items: ['- Parent\n  - Child', '- Sibling'], label: null },
    ]);
  });

  it('reads a lone row of a table cut by chunking as a row without header', () => {
    expect(readChunkBlocks('Variable: see below.\n\n| `PORT` | `8000` | Port |')).toEqual([
      { kind: 'text', text: 'Variable: see below.', label: null },
      { kind: 'table', header: null, rows: [['`PORT`', '`8000`', 'Port']], label: null },
    ]);
  });

  it('reads raw markdown too: headings, tables with their delimiter row, quoted lines and tilde fences', () => {
    expect(readChunkBlocks('## Setup\n\n| A | B |\n| --- | :-: |\n| 1 | 2 |\n\n> Quoted advice.\n\n~~~\ncode ```\n~~~')).toEqual([
      { kind: 'heading', text: 'Setup' },
      { kind: 'table', header: ['A', 'B'], rows: [['1', '2']], label: null },
      { kind: 'text', text: 'Quoted advice.', label: null },
      { kind: 'code', language: null, meta: null, code: 'code ```' },
    ]);
  });

  it('keeps a code block whole when the chunker split a long one into fenced parts', () => {
    const code = Array.from({ length: 120 }, (_, index) => `const value${index} = compute(${index}); // line ${index}`).join('\n');
    const doc = parseDocument({ file: 'long-code.md', text: `# Long\n\n## Code\n\nIntro.\n\n\`\`\`ts\n${code}\n\`\`\`\n` });
    const chunks = chunkDocument(doc, { fileHash: 'f'.repeat(64), maxTokens: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    const codeLines = chunks
      .flatMap((chunk) => readChunkBlocks(chunk.text))
      .flatMap((block) => (block.kind === 'code' ? block.code.split('\n') : []));
    expect(codeLines).toEqual(code.split('\n'));
  });
});
