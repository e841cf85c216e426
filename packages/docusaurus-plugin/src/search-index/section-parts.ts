/**
 * Splits a long section the way the server's chunker does
 * (packages/core/src/markdown/chunk-document.ts): a section that fits is one
 * part; a longer one splits first at its H4–H6 headings (each part then lands
 * on that heading's anchor), then between blocks, then between sentences.
 *
 * The size limit is in characters rather than the server's 512 estimated
 * tokens: English docs run at about four characters per token, so 2,000
 * characters is close to the server's parts without shipping its tokenizer to
 * the build. Parts do not overlap (the server's overlap helps a language model
 * read a cut passage; keyword search does not need it, and the index stays smaller).
 */
import type { HtmlSection, SectionBlock } from './html-sections.js';

export const MAX_PART_CHARS = 2000;

export interface SectionPart {
  anchor: string;
  headings: string[];
  depth: number;
  text: string;
}

interface Group {
  anchor: string;
  headings: string[];
  depth: number;
  texts: string[];
}

const BLOCK_JOINER = '\n\n';

function size(headings: string[], texts: string[]): number {
  return headings.join(' > ').length + texts.reduce((total, text) => total + text.length + BLOCK_JOINER.length, 0);
}

function textOf(block: SectionBlock): string {
  return block.text;
}

export function sectionParts(section: HtmlSection, maxChars = MAX_PART_CHARS): SectionPart[] {
  const whole: Group = { anchor: section.anchor, headings: section.headings, depth: section.depth, texts: section.blocks.map(textOf) };
  const groups = size(whole.headings, whole.texts) <= maxChars ? [whole] : splitAtSubheadings(section);
  const parts: SectionPart[] = [];
  for (const group of groups) {
    for (const text of pack(group, maxChars)) parts.push({ anchor: group.anchor, headings: group.headings, depth: group.depth, text });
  }
  return parts;
}

function splitAtSubheadings(section: HtmlSection): Group[] {
  const groups: Group[] = [];
  const stack: { depth: number; text: string }[] = [];
  let current: Group = { anchor: section.anchor, headings: section.headings, depth: section.depth, texts: [] };
  groups.push(current);
  for (const block of section.blocks) {
    if (block.kind === 'text') {
      current.texts.push(block.text);
      continue;
    }
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= block.depth) stack.pop();
    stack.push({ depth: block.depth, text: block.text });
    current = { anchor: block.anchor, headings: [...section.headings, ...stack.map((entry) => entry.text)], depth: block.depth, texts: [] };
    groups.push(current);
  }
  return groups.filter((group) => group.texts.some((text) => text.trim() !== ''));
}

/** Bodies of at most `maxChars` (heading path included), cut between blocks, then sentences, lines and words. */
function pack(group: Group, maxChars: number): string[] {
  const budget = Math.max(200, maxChars - group.headings.join(' > ').length);
  const pieces = group.texts.flatMap((text) => (text.length <= budget ? [text] : splitLong(text, budget)));
  const bodies: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current !== '' && current.length + BLOCK_JOINER.length + piece.length > budget) {
      bodies.push(current);
      current = '';
    }
    current = current === '' ? piece : `${current}${BLOCK_JOINER}${piece}`;
  }
  if (current !== '') bodies.push(current);
  return bodies;
}

const SENTENCE_END = /(?<=[.!?:;])\s+(?=[\p{Lu}\p{N}"'`([*_])|\n+/u;

function splitLong(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const sentence of text.split(SENTENCE_END)) {
    for (const piece of sentence.length <= budget ? [sentence] : splitWords(sentence, budget)) {
      if (current !== '' && current.length + 1 + piece.length > budget) {
        pieces.push(current);
        current = '';
      }
      current = current === '' ? piece : `${current} ${piece}`;
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

function splitWords(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    // A single "word" longer than the budget (minified code, a data URL) is cut where it must be.
    const chunks = word.length <= budget ? [word] : (word.match(new RegExp(`.{1,${budget}}`, 'gsu')) ?? []);
    for (const chunk of chunks) {
      if (current !== '' && current.length + 1 + chunk.length > budget) {
        pieces.push(current);
        current = '';
      }
      current = current === '' ? chunk : `${current} ${chunk}`;
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}
