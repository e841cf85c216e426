/**
 * What to quote of one section, decided by its structure and the kind of
 * question, within a size budget:
 * - how-to: the steps (lists) and code, with the sentences that lead into them;
 * - troubleshooting: the section in reading order (what causes the error, then the fix and its code);
 * - anything else: the opening paragraphs, plus the block that matches the question best (a table's rows, a list).
 * A section that fits the budget is quoted whole for a how-to (when it has steps) or a troubleshooting question.
 *
 * Blocks are never cut in the middle: a list loses whole items, a table whole
 * rows (it keeps its header), prose whole sentences; of a code example too
 * long to quote, its first lines are quoted, closed by their fence, with a
 * note saying how many lines the docs show. A section that opens with one wall
 * of prose has no structure to go by: the caller then quotes its best sentences.
 */
import { analyzeTerms, type ChunkBlock } from '@docs-chat/core';
import { admonitionMarkdown, blockMarkdown, codeWithoutMagicComments, fencedCode, proseMarkdown, tableMarkdown } from './block-markdown.js';
import type { QuestionIntent } from './question-intent.js';
import { splitProse } from './quoted-sentences.js';

/** A block of a section and the number of the source it was read from, for its citation. */
export interface QuotableBlock {
  block: ChunkBlock;
  source: number;
}

export interface Excerpt {
  markdown: string;
  /** Numbers of the sources quoted, in reading order. */
  sources: number[];
  /** True when part of the section was left out (over the budget, or code too long to quote). */
  shortened: boolean;
}

export interface ExcerptLimits {
  /** Most characters of quoted markdown: about a screen of the chat panel (a typical how-to section fits whole). */
  budgetChars: number;
  /** Of a code block longer than this (characters or lines), only the first lines are quoted, with a note. */
  maxCodeChars: number;
  maxCodeLines: number;
  /** A concept answer quotes opening paragraphs until it holds about this much. */
  leadingChars: number;
}

/**
 * Set by hand, not fitted: the budget is a little under one chunk (512 tokens, about 2,000 characters), so most
 * sections are quoted whole; the code limits keep one example under a screen of the panel. Checked by reading the
 * answers to the docs-site and redux dev sets (eval/src/extractive-answers.ts).
 */
export const DEFAULT_EXCERPT_LIMITS: ExcerptLimits = { budgetChars: 1800, maxCodeChars: 1400, maxCodeLines: 40, leadingChars: 600 };

function blockText(block: ChunkBlock): string {
  switch (block.kind) {
    case 'code':
      return block.code;
    case 'heading':
    case 'text':
      return block.text;
    case 'list':
      return block.items.join('\n');
    case 'table':
      return [block.header ?? [], ...block.rows].map((row) => row.join(' ')).join('\n');
  }
}

function matchCount(text: string, questionTerms: Set<string>): number {
  const terms = new Set(analyzeTerms(text));
  let count = 0;
  for (const term of questionTerms) if (terms.has(term)) count++;
  return count;
}

const isSteps = (block: ChunkBlock): boolean => block.kind === 'list' || block.kind === 'code';
/** An admonition whose content starts with code: its label is a block of its own, right before it. */
const isLabelOnly = (block: ChunkBlock): boolean => block.kind === 'text' && block.text === '' && block.label !== null;

function isTooLongCode(block: ChunkBlock, limits: ExcerptLimits): block is Extract<ChunkBlock, { kind: 'code' }> {
  if (block.kind !== 'code') return false;
  const code = codeWithoutMagicComments(block.code);
  return code.length > limits.maxCodeChars || code.split('\n').length > limits.maxCodeLines;
}

/** Indices of the blocks worth quoting for this kind of question, in reading order. */
function planBlocks(blocks: QuotableBlock[], intent: QuestionIntent, questionTerms: Set<string>, limits: ExcerptLimits): number[] {
  const all = blocks.map((_, index) => index);
  const sizes = blocks.map(({ block }) => blockMarkdown(block).length);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const hasSteps = blocks.some(({ block }) => isSteps(block));
  if ((intent === 'how-to' && hasSteps) || intent === 'troubleshooting') {
    if (total <= limits.budgetChars || intent === 'troubleshooting') return all;
    // The steps, the code and what leads into them; explanations between them give way first.
    return all.filter((index) => {
      const block = blocks[index]?.block;
      const next = blocks[index + 1]?.block;
      return index === 0 || (block !== undefined && isSteps(block)) || (next !== undefined && isSteps(next));
    });
  }
  // An opening that announces what follows ("... three principles:") is quoted with what follows.
  const opening = blocks[0]?.block;
  if (opening?.kind === 'text' && /:\s*$/.test(opening.text)) return all;
  // The opening paragraphs, and what a paragraph ending with a colon introduces.
  const picked: number[] = [];
  let size = 0;
  for (const index of all) {
    const block = blocks[index]?.block;
    if (!block) break;
    const previous = blocks[index - 1]?.block;
    const introduced = previous !== undefined && (isLabelOnly(previous) || (previous.kind === 'text' && /:\s*$/.test(previous.text)));
    if (picked.length > 0 && !introduced && (size >= limits.leadingChars || block.kind === 'code')) break;
    picked.push(index);
    size += sizes[index] ?? 0;
  }
  // The block holding most of the question's terms, when the opening holds fewer of them.
  const scores = blocks.map(({ block }) => matchCount(blockText(block), questionTerms));
  const openingBest = Math.max(0, ...picked.map((index) => scores[index] ?? 0));
  let best = -1;
  scores.forEach((score, index) => {
    if (!picked.includes(index) && score > openingBest && (best === -1 || score > (scores[best] ?? 0))) best = index;
  });
  if (best !== -1) {
    picked.push(best);
    if (best > 0 && isLabelOnly(blocks[best - 1]?.block ?? { kind: 'heading', text: '' })) picked.push(best - 1);
  }
  return picked.sort((left, right) => left - right);
}

/** The rows of a table that fit, those sharing the question's terms first, kept in their order. */
function partialTable(block: Extract<ChunkBlock, { kind: 'table' }>, room: number, questionTerms: Set<string>): string | null {
  // Rows holding more than half as many question terms as the best row: the row asked about and its close kin.
  const counts = block.rows.map((row) => matchCount(row.join(' '), questionTerms));
  const best = Math.max(0, ...counts);
  const matching = block.rows.filter((_, index) => best > 0 && (counts[index] ?? 0) * 2 > best);
  const preferred = matching.length > 0 ? matching : block.rows;
  const kept: string[][] = [];
  for (const row of preferred) {
    const candidate = [...kept, row];
    if (tableMarkdown(block.header, candidate).length > room) break;
    kept.push(row);
  }
  if (kept.length === 0) return null;
  const ordered = block.rows.filter((row) => kept.includes(row));
  const table = tableMarkdown(block.header, ordered);
  return block.label ? admonitionMarkdown(block.label, table) : table;
}

function partialList(block: Extract<ChunkBlock, { kind: 'list' }>, room: number): string | null {
  const items: string[] = [];
  for (const item of block.items) {
    if ([...items, item].map(proseMarkdown).join('\n').length > room) break;
    items.push(item);
  }
  if (items.length === 0) return null;
  return blockMarkdown({ ...block, items });
}

function partialText(block: Extract<ChunkBlock, { kind: 'text' }>, room: number): string | null {
  const sentences: string[] = [];
  for (const sentence of splitProse(block.text)) {
    if (blockMarkdown({ ...block, text: [...sentences, sentence].join(' ') }).length > room) break;
    sentences.push(sentence);
  }
  return sentences.length === 0 ? null : blockMarkdown({ ...block, text: `${sentences.join(' ')} …` });
}

function partialBlock(block: ChunkBlock, room: number, questionTerms: Set<string>): string | null {
  if (block.kind === 'table') return partialTable(block, room, questionTerms);
  if (block.kind === 'list') return partialList(block, room);
  if (block.kind === 'text' && block.label === null) return partialText(block, room);
  return null;
}

/** Fewer lines than this of a long example say too little to be worth quoting; the docs are pointed to instead. */
const MIN_CODE_HEAD_LINES = 6;

/**
 * The first lines of a code example too long to quote whole, within `maxLines` and `maxChars`, ending at a blank
 * line (the end of a statement or a function) when there is one in the second half, or null when too few fit.
 */
function codeHead(code: string, maxLines: number, maxChars: number): { code: string; lines: number } | null {
  const lines = code.split('\n');
  let kept = 0;
  let chars = 0;
  while (kept < lines.length && kept < maxLines && chars + (lines[kept] ?? '').length + 1 <= maxChars)
    chars += (lines[kept++] ?? '').length + 1;
  for (let blank = kept - 1; blank >= kept / 2; blank--) {
    if ((lines[blank] ?? '').trim() === '') {
      kept = blank;
      break;
    }
  }
  while (kept > 0 && (lines[kept - 1] ?? '').trim() === '') kept--;
  return kept < MIN_CODE_HEAD_LINES ? null : { code: lines.slice(0, kept).join('\n'), lines: kept };
}

/** A long example: its first lines and a note saying how much is left out, or only a pointer to the docs. */
function longCodeMarkdown(block: Extract<ChunkBlock, { kind: 'code' }>, source: number, room: number, limits: ExcerptLimits): string {
  const code = codeWithoutMagicComments(block.code);
  const total = code.split('\n').length;
  const noteRoom = 120;
  const head = codeHead(code, limits.maxCodeLines, Math.min(limits.maxCodeChars, room - noteRoom));
  if (head === null) return `*The docs show a ${total}-line ${block.language ? `${block.language} ` : ''}example here: see [${source}].*`;
  return `${fencedCode(head.code, block.language, block.meta)}\n\n*The first ${head.lines} of its ${total} lines; the whole example is in the docs [${source}].*`;
}

/** A paragraph that announces what follows (`... like this:`), which means nothing without it. */
function leadsIn(block: ChunkBlock): boolean {
  return (
    (block.kind === 'text' && /:\s*$/.test(block.text)) ||
    (block.kind === 'text' && block.text === '' && block.label !== null) ||
    block.kind === 'heading'
  );
}

/** The content indent of a list's last item when it announces what follows (`1. Add the package:` → 3). */
function announcingItemIndent(block: ChunkBlock): number | null {
  if (block.kind !== 'list' || block.label !== null) return null;
  const last = block.items[block.items.length - 1] ?? '';
  if (!/:\s*$/.test(last)) return null;
  return /^(\s*(?:[-*+]|\d{1,9}[.)])\s+)/.exec(last)?.[1]?.length ?? null;
}

function indented(markdown: string, width: number): string {
  const indent = ' '.repeat(width);
  return markdown
    .split('\n')
    .map((line) => (line === '' ? line : indent + line))
    .join('\n');
}

/** Whether the section opens with plain prose longer than the budget: nothing to quote it by but its sentences. */
export function opensWithWallOfProse(blocks: QuotableBlock[], limits: ExcerptLimits = DEFAULT_EXCERPT_LIMITS): boolean {
  const first = blocks[0]?.block;
  return first?.kind === 'text' && first.label === null && blockMarkdown(first).length > limits.budgetChars;
}

/** The excerpt of a section for a question, or null when nothing in it is worth quoting within the budget. */
export function excerptSection(
  blocks: QuotableBlock[],
  intent: QuestionIntent,
  questionTerms: Set<string>,
  limits: ExcerptLimits = DEFAULT_EXCERPT_LIMITS,
): Excerpt | null {
  const plan = planBlocks(blocks, intent, questionTerms, limits);
  const parts: { markdown: string; source: number; leadsIn: boolean; itemIndent: number | null }[] = [];
  let room = limits.budgetChars;
  let shortened = plan.length < blocks.length;
  const add = (markdown: string, source: number, block: ChunkBlock): void => {
    const previous = parts[parts.length - 1];
    // Code right after a step that announces it ("1. Add the package:") was inside that step in the docs.
    const nested = block.kind === 'code' && previous?.itemIndent != null ? indented(markdown, previous.itemIndent) : markdown;
    parts.push({ markdown: nested, source, leadsIn: leadsIn(block), itemIndent: announcingItemIndent(block) });
    room -= nested.length + 2;
  };
  for (let position = 0; position < plan.length; position++) {
    const index = plan[position] ?? 0;
    const entry = blocks[index];
    if (entry === undefined) continue;
    const { block, source } = entry;
    if (isTooLongCode(block, limits)) {
      add(longCodeMarkdown(block, source, room, limits), source, block);
      shortened = true;
      continue;
    }
    // An admonition that starts with code: its label and the code are quoted together.
    const next = blocks[index + 1];
    const label = block.kind === 'text' && block.text === '' ? block.label : null;
    const labelled = label !== null && next !== undefined && plan[position + 1] === index + 1 && !isTooLongCode(next.block, limits);
    const markdown = labelled ? admonitionMarkdown(label, blockMarkdown(next.block)) : blockMarkdown(block);
    if (markdown.length <= room) {
      add(markdown, source, labelled ? next.block : block);
      if (labelled) position++;
      continue;
    }
    const partial = partialBlock(block, room, questionTerms);
    if (partial !== null) add(partial, source, block);
    shortened = true;
    break;
  }
  // What announces a block that did not make it in announces nothing.
  while (parts.length > 0 && parts[parts.length - 1]?.leadsIn) {
    parts.pop();
    shortened = true;
  }
  if (parts.length === 0) return null;
  const sources = [...new Set(parts.map((part) => part.source))];
  return { markdown: parts.map((part) => part.markdown).join('\n\n'), sources, shortened };
}
