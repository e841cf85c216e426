/**
 * Reads a chunk's text back into the blocks the parser and chunker wrote:
 * paragraphs, lists, tables, code fences and admonition labels. It is the
 * inverse of `renderBody` (blocks joined by a blank line) for readers that
 * quote a section by its structure (the extractive answers).
 *
 * The chunk text is not general markdown, which is why no markdown parser is
 * used here: tables are stored as `a | b` rows without a delimiter row, each
 * list item is a block of its own, and an admonition is a `Tip: Title — `
 * label glued to its first block; a markdown parser would read all three as
 * plain paragraphs. Raw markdown (`#` headings, `| a |` tables with their
 * delimiter row, `>` quotes) is read too, so text from elsewhere still works.
 */
import { ADMONITION_KEYWORDS } from './preprocess-source.js';

/** An admonition's kind as the parser labels it (`Tip`, `Warning`, ...) and its title, if any. */
export interface BlockLabel {
  kind: string;
  title: string | null;
}

export type ChunkBlock =
  | { kind: 'text'; text: string; label: BlockLabel | null }
  /** Items keep their marker and their continuation and nested lines, as written. */
  | { kind: 'list'; ordered: boolean; items: string[]; label: BlockLabel | null }
  /** Cells of each row; `header` is null for a lone row of a table cut by chunking. */
  | { kind: 'table'; header: string[] | null; rows: string[][]; label: BlockLabel | null }
  | { kind: 'code'; language: string | null; meta: string | null; code: string }
  | { kind: 'heading'; text: string };

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])(?:\s|$)/;
const CODE_SPAN = /`[^`\n]*`/g;
const ADMONITION_KINDS = ADMONITION_KEYWORDS.map((keyword) => keyword.charAt(0).toUpperCase() + keyword.slice(1));
/** `Tip`, `Tip: Title` (a label line above a list or table) or `Tip: Title — text` / `Tip: text` (glued to prose). */
const LABEL = new RegExp(`^(${ADMONITION_KINDS.join('|')})(?::[ \\t]*|$)`);
const TITLE_SEPARATOR = ' — ';

function isTableLine(line: string): boolean {
  const outsideCode = line.replace(CODE_SPAN, '');
  return outsideCode.trimStart().startsWith('|') || outsideCode.includes(' | ');
}

function isDelimiterRow(cells: string[]): boolean {
  return cells.length > 0 && cells.every((cell) => /^:?-+:?$/.test(cell));
}

/** Cells of a row, split on pipes outside code spans (`a | b` in a cell is one value). */
export function tableCells(line: string): string[] {
  const spans: string[] = [];
  const masked = line.trim().replace(CODE_SPAN, (span) => `\u0000${spans.push(span) - 1}\u0000`);
  return (
    masked
      .replace(/^\|/, '')
      .replace(/(?<!\\)\|$/, '')
      .split(/(?<!\\)\|/)
      // eslint-disable-next-line no-control-regex -- NUL marks a masked code span
      .map((cell) => cell.replace(/\u0000(\d+)\u0000/g, (_, index: string) => spans[Number(index)] ?? '').trim())
  );
}

/** Splits a leading admonition label off a block's first line. */
function readLabel(lines: string[]): { label: BlockLabel | null; lines: string[] } {
  const first = lines[0] ?? '';
  const match = LABEL.exec(first);
  if (!match) return { label: null, lines };
  const kind = match[1] ?? '';
  const rest = first.slice(match[0].length);
  if (lines.length > 1 && (LIST_ITEM.test(lines[1] ?? '') || isTableLine(lines[1] ?? ''))) {
    // A label line above a list or table: the line is the label, with its title if any.
    return { label: { kind, title: rest.trim() === '' ? null : rest.trim() }, lines: lines.slice(1) };
  }
  const separator = rest.indexOf(TITLE_SEPARATOR);
  if (separator > 0)
    return {
      label: { kind, title: rest.slice(0, separator).trim() },
      lines: [rest.slice(separator + TITLE_SEPARATOR.length), ...lines.slice(1)],
    };
  // The label alone (its admonition starts with code), or glued to prose without a title.
  return { label: { kind, title: null }, lines: rest.trim() === '' ? [] : [rest, ...lines.slice(1)] };
}

function readGroup(group: string[]): ChunkBlock | null {
  const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(group[0] ?? '');
  if (heading && group.length === 1) return { kind: 'heading', text: heading[1] ?? '' };
  const { label, lines } = readLabel(group.map((line) => line.replace(/^>\s?/, '')));
  if (lines.length === 0) return label ? { kind: 'text', text: '', label } : null;
  if (LIST_ITEM.test(lines[0] ?? '')) {
    const items: string[] = [];
    const baseIndent = (LIST_ITEM.exec(lines[0] ?? '')?.[1] ?? '').length;
    for (const line of lines) {
      const item = LIST_ITEM.exec(line);
      if (item && (item[1] ?? '').length <= baseIndent) items.push(line);
      else if (items.length > 0) items[items.length - 1] += `\n${line}`;
    }
    return { kind: 'list', ordered: /\d/.test(LIST_ITEM.exec(lines[0] ?? '')?.[2] ?? ''), items, label };
  }
  if (lines.every(isTableLine) && (lines.length > 1 || (lines[0] ?? '').trimStart().startsWith('|'))) {
    const rows = lines.map(tableCells);
    const delimiter = rows.findIndex(isDelimiterRow);
    if (delimiter === 1) return { kind: 'table', header: rows[0] ?? null, rows: rows.slice(2), label };
    if (rows.length === 1) return { kind: 'table', header: null, rows, label };
    return { kind: 'table', header: rows[0] ?? null, rows: rows.slice(1).filter((row) => !isDelimiterRow(row)), label };
  }
  return { kind: 'text', text: lines.join('\n'), label };
}

/** Number of an ordered item's marker (`3.` → 3), or null for a bullet. */
function itemNumber(item: string): number | null {
  const marker = /^\s*(\d{1,9})[.)]/.exec(item);
  return marker ? Number(marker[1]) : null;
}

/**
 * Each list item is a block of its own in a chunk: consecutive items of one
 * list (same kind, numbers that carry on) become one list again.
 */
function mergeLists(blocks: ChunkBlock[]): ChunkBlock[] {
  const merged: ChunkBlock[] = [];
  for (const block of blocks) {
    const previous = merged[merged.length - 1];
    if (block.kind === 'list' && previous?.kind === 'list' && block.label === null) {
      if (/^\s+/.test(block.items[0] ?? '')) {
        // An indented item belongs to the item before it (a nested list).
        previous.items[previous.items.length - 1] += `\n${block.items.join('\n')}`;
        continue;
      }
      const previousNumber = itemNumber(previous.items[previous.items.length - 1] ?? '');
      const nextNumber = itemNumber(block.items[0] ?? '');
      if (previous.ordered === block.ordered && (!block.ordered || (previousNumber !== null && nextNumber === previousNumber + 1))) {
        previous.items.push(...block.items);
        continue;
      }
    }
    merged.push(block);
  }
  return merged;
}

/** The blocks of a chunk's text (or of a markdown text), in reading order. */
export function readChunkBlocks(text: string): ChunkBlock[] {
  const blocks: ChunkBlock[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let group: string[] = [];
  const flush = (): void => {
    const block = group.length > 0 ? readGroup(group) : null;
    if (block) blocks.push(block);
    group = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[1]?.startsWith('`') && (fence[2] ?? '').includes('`'))) {
      flush();
      const marker = fence[1] ?? '```';
      const info = (fence[2] ?? '').trim();
      const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      const code: string[] = [];
      index++;
      while (index < lines.length && !closing.test(lines[index] ?? '')) code.push(lines[index++] ?? '');
      const [language, ...meta] = info === '' ? [] : info.split(/\s+/);
      blocks.push({ kind: 'code', language: language ?? null, meta: meta.length > 0 ? meta.join(' ') : null, code: code.join('\n') });
      continue;
    }
    if (line.trim() === '') flush();
    else group.push(line);
  }
  flush();
  return mergeLists(blocks);
}
