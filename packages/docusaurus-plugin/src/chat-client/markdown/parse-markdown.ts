import type { BlockNode, InlineNode, TableAlign } from './markdown-ast.js';
import { parseInline } from './parse-inline.js';

/*
 * A deliberately small markdown parser for model answers: the blocks and
 * inlines answers actually use (GFM tables included), tolerant of a stream cut
 * mid-way (an open code fence is code until the end). Raw HTML is not a thing
 * here: `<script>` stays the text "<script>".
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+\s*)?$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const BLOCKQUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^( {0,12})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function splitTableRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  const cells: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 0; i < row.length; i += 1) {
    const char = row[i];
    if (char === '\\' && row[i + 1] === '|') {
      current += '|';
      i += 1;
    } else if (char === '`') {
      inCode = !inCode;
      current += char;
    } else if (char === '|' && !inCode) {
      cells.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  cells.push(current.trim());
  return cells;
}

function startsTable(lines: string[], index: number): boolean {
  const header = lines[index];
  const delimiter = lines[index + 1];
  return (
    header !== undefined && delimiter !== undefined && header.includes('|') && delimiter.includes('-') && TABLE_DELIMITER.test(delimiter)
  );
}

function startsBlock(lines: string[], index: number): boolean {
  const line = lines[index] ?? '';
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    THEMATIC_BREAK.test(line) ||
    BLOCKQUOTE.test(line) ||
    LIST_ITEM.test(line) ||
    startsTable(lines, index)
  );
}

function indentOf(line: string): number {
  return (/^ */.exec(line.replace(/\t/g, '    '))?.[0] ?? '').length;
}

function stripIndent(line: string, amount: number): string {
  const expanded = line.replace(/\t/g, '    ');
  const indent = indentOf(expanded);
  return expanded.slice(Math.min(indent, amount));
}

function parseList(lines: string[], start: number): { node: BlockNode; next: number } {
  const first = LIST_ITEM.exec(lines[start] ?? '') as RegExpExecArray;
  const baseIndent = (first[1] ?? '').length;
  const ordered = /\d/.test(first[2] ?? '');
  const items: string[][] = [];
  let contentIndent = 0;
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const item = LIST_ITEM.exec(line);
    if (item && (item[1] ?? '').length <= baseIndent + 1 && /\d/.test(item[2] ?? '') === ordered) {
      const markerWidth = (item[1] ?? '').length + (item[2] ?? '').length + 1;
      contentIndent = markerWidth;
      items.push([item[3] ?? '']);
      i += 1;
      continue;
    }
    if (isBlank(line)) {
      // A blank line continues the list only if more of it follows.
      const following = lines.slice(i + 1).findIndex((candidate) => !isBlank(candidate));
      const nextLine = following === -1 ? undefined : lines[i + 1 + following];
      if (nextLine === undefined) break;
      const nextItem = LIST_ITEM.exec(nextLine);
      const continues =
        indentOf(nextLine) >= contentIndent ||
        (nextItem !== null && (nextItem[1] ?? '').length <= baseIndent + 1 && /\d/.test(nextItem[2] ?? '') === ordered);
      if (!continues) break;
      items[items.length - 1]?.push('');
      i += 1;
      continue;
    }
    if (indentOf(line) > baseIndent) {
      items[items.length - 1]?.push(stripIndent(line, contentIndent));
      i += 1;
      continue;
    }
    // An unindented line right after item text continues its paragraph (lazy continuation).
    const current = items[items.length - 1];
    const previousLine = current?.[current.length - 1];
    if (current && previousLine !== undefined && !isBlank(previousLine) && !startsBlock(lines, i)) {
      current.push(line.trim());
      i += 1;
      continue;
    }
    break;
  }
  const startNumber = ordered ? Number(/\d+/.exec(first[2] ?? '1')?.[0] ?? 1) : 1;
  return { node: { type: 'list', ordered, start: startNumber, items: items.map((itemLines) => parseBlocks(itemLines)) }, next: i };
}

function parseTable(lines: string[], start: number): { node: BlockNode; next: number } {
  const header = splitTableRow(lines[start] ?? '');
  const align: TableAlign[] = splitTableRow(lines[start + 1] ?? '').map((cell) => {
    const left = cell.startsWith(':');
    const right = cell.endsWith(':');
    return left && right ? 'center' : right ? 'right' : left ? 'left' : null;
  });
  const rows: InlineNode[][][] = [];
  let i = start + 2;
  while (i < lines.length && !isBlank(lines[i] ?? '') && (lines[i] ?? '').includes('|')) {
    const cells = splitTableRow(lines[i] ?? '');
    // Rows are padded or cut to the header's width, as GFM does.
    rows.push(header.map((_, column) => parseInline(cells[column] ?? '')));
    i += 1;
  }
  return {
    node: { type: 'table', align: header.map((_, column) => align[column] ?? null), header: header.map((cell) => parseInline(cell)), rows },
    next: i,
  };
}

function parseBlocks(lines: string[]): BlockNode[] {
  const blocks: BlockNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i += 1;
      continue;
    }

    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const indent = indentOf(line);
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[i] ?? '')) {
        body.push(stripIndent(lines[i] ?? '', indent));
        i += 1;
      }
      i += 1; // the closing fence (or past the end while the answer is still streaming)
      blocks.push({ type: 'code', language: fence[2] ? fence[2].toLowerCase() : null, value: body.join('\n') });
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ type: 'heading', depth: (heading[1] ?? '#').length, children: parseInline(heading[2] ?? '') });
      i += 1;
      continue;
    }

    if (THEMATIC_BREAK.test(line)) {
      blocks.push({ type: 'thematicBreak' });
      i += 1;
      continue;
    }

    if (BLOCKQUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && BLOCKQUOTE.test(lines[i] ?? '')) {
        quoted.push(BLOCKQUOTE.exec(lines[i] ?? '')?.[1] ?? '');
        i += 1;
      }
      blocks.push({ type: 'blockquote', children: parseBlocks(quoted) });
      continue;
    }

    if (LIST_ITEM.test(line)) {
      const { node, next } = parseList(lines, i);
      blocks.push(node);
      i = next;
      continue;
    }

    if (startsTable(lines, i)) {
      const { node, next } = parseTable(lines, i);
      blocks.push(node);
      i = next;
      continue;
    }

    const paragraph: string[] = [];
    while (i < lines.length && !isBlank(lines[i] ?? '') && (paragraph.length === 0 || !startsBlock(lines, i))) {
      paragraph.push((lines[i] ?? '').replace(/^ +/, ''));
      i += 1;
    }
    blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n')) });
  }
  return blocks;
}

/** Parses an answer (complete or still streaming) into blocks. */
export function parseMarkdown(markdown: string): BlockNode[] {
  return parseBlocks(markdown.replace(/\r\n?/g, '\n').split('\n'));
}

function inlineToText(nodes: InlineNode[]): string {
  return nodes
    .map((node) => {
      switch (node.type) {
        case 'text':
        case 'inlineCode':
          return node.value;
        case 'break':
          return '\n';
        case 'citation':
          return '';
        default:
          return inlineToText(node.children);
      }
    })
    .join('');
}

/** The answer as plain text, for the screen-reader announcement and "Copy answer" fallbacks. */
export function markdownToPlainText(markdown: string): string {
  const render = (blocks: BlockNode[]): string =>
    blocks
      .map((block) => {
        switch (block.type) {
          case 'paragraph':
          case 'heading':
            return inlineToText(block.children);
          case 'code':
            return block.value;
          case 'list':
            return block.items.map((item) => render(item)).join('\n');
          case 'blockquote':
            return render(block.children);
          case 'table':
            return [block.header, ...block.rows].map((row) => row.map(inlineToText).join(', ')).join('\n');
          case 'thematicBreak':
            return '';
        }
      })
      .filter((text) => text !== '')
      .join('\n');
  // Removing citations leaves "word ." behind: close those gaps.
  return render(parseMarkdown(markdown))
    .replace(/[ \t]+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}
