/**
 * Writes the blocks of a section as the markdown the chat panel renders:
 * lists as lists, tables as tables (with the header and delimiter rows the
 * chunk text leaves out), code in a fence that its content cannot close, and
 * admonitions as quotes that keep their label. A block is always written
 * whole: cutting one is the job of the excerpt, by whole items and rows.
 */
import type { BlockLabel, ChunkBlock } from '@docs-chat/core';

/**
 * Lines holding only a Docusaurus magic comment (`// highlight-next-line`, `{/* highlight-start *\/}`...):
 * the site turns them into highlighting; read as text they are noise in the middle of the code.
 */
const MAGIC_COMMENT_LINE = /^\s*(?:\/\/|#|\/\*|\{\/\*|<!--)\s*highlight-(?:next-line|start|end)\s*(?:\*\/\}?|-->)?\s*$/;

const CODE_SPAN = /`[^`\n]*`/g;

/**
 * Links keep only their text: their targets are relative to a docs page, not
 * to the chat panel, and the cited source already links to the section.
 */
export function flattenInlineMarkup(text: string): string {
  return text.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}

/**
 * Prose from the docs as safe inline markdown: links keep only their text (their targets are relative to a docs
 * page, not to the chat panel), and a `[2]` written in the docs is escaped so that it is not read as a citation.
 */
export function proseMarkdown(text: string): string {
  const spans: string[] = [];
  const masked = flattenInlineMarkup(text).replace(CODE_SPAN, (span) => `\u0000${spans.push(span) - 1}\u0000`);
  // eslint-disable-next-line no-control-regex -- NUL marks a masked code span
  const maskedSpan = /\u0000(\d+)\u0000/g;
  return masked
    .replace(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g, '\\[$1]')
    .replace(maskedSpan, (_, index: string) => spans[Number(index)] ?? '');
}

export function codeWithoutMagicComments(code: string): string {
  return code
    .split('\n')
    .filter((line) => !MAGIC_COMMENT_LINE.test(line))
    .join('\n');
}

/** A fence longer than any backtick run in the code, so the code cannot close it. */
export function fencedCode(code: string, language: string | null, meta: string | null): string {
  let longestRun = 2;
  for (const run of code.matchAll(/`{3,}/g)) longestRun = Math.max(longestRun, run[0].length);
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}${[language, meta].filter(Boolean).join(' ')}\n${code}\n${fence}`;
}

function tableCell(cell: string): string {
  // A pipe inside a cell, even inside a code span, must be escaped in a GFM table.
  return proseMarkdown(cell).replace(/(?<!\\)\|/g, '\\|');
}

/** A table as GFM; rows cut from their header (a table split by chunking) become a list of rows. */
export function tableMarkdown(header: string[] | null, rows: string[][]): string {
  if (header === null) return rows.map((row) => `- ${row.map(tableCell).join(' — ')}`).join('\n');
  const width = header.length;
  const line = (cells: string[]): string =>
    `| ${Array.from({ length: width }, (_, column) => tableCell(cells[column] ?? '')).join(' | ')} |`;
  return [line(header), `| ${header.map(() => '---').join(' | ')} |`, ...rows.map(line)].join('\n');
}

function labelMarkdown(label: BlockLabel): string {
  return label.title ? `**${label.kind}: ${proseMarkdown(label.title)}**` : `**${label.kind}**`;
}

/**
 * Puts markdown inside a quote, labelled as the docs label it (Tip, Warning...): on the line of a paragraph
 * (`**Note:** text`), or above a titled admonition and above a list, table or code, which must start a line.
 */
export function admonitionMarkdown(label: BlockLabel, body: string, bodyIsProse = false): string {
  const content =
    body === '' ? labelMarkdown(label) : bodyIsProse && !label.title ? `**${label.kind}:** ${body}` : `${labelMarkdown(label)}\n\n${body}`;
  return content
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** The markdown of one block, written whole. */
export function blockMarkdown(block: ChunkBlock): string {
  switch (block.kind) {
    case 'code':
      return fencedCode(codeWithoutMagicComments(block.code), block.language, block.meta);
    case 'heading':
      return `**${proseMarkdown(block.text)}**`;
    case 'text':
      return block.label ? admonitionMarkdown(block.label, proseMarkdown(block.text), true) : proseMarkdown(block.text);
    case 'list': {
      const list = block.items.map(proseMarkdown).join('\n');
      return block.label ? admonitionMarkdown(block.label, list) : list;
    }
    case 'table': {
      const table = tableMarkdown(block.header, block.rows);
      return block.label ? admonitionMarkdown(block.label, table) : table;
    }
  }
}
