import { renderFence } from './code-fence.js';
import type { Chunk, DocumentSection, ParsedDocument, SectionBlock } from './document.js';
import { sha256Hex, uuidV5 } from './stable-id.js';
import { countTokens } from '../protocol/token-budget.js';
import { SHARED_PROFILE } from '../profile/retrieval-profile.js';

export interface ChunkOptions {
  /** SHA-256 (hex) of the source file, copied onto every chunk. */
  fileHash: string;
  /** Most tokens in one chunk's indexText, heading path included (default 512). */
  maxTokens?: number;
  /** Share of a part repeated at the start of the next one when a section is split (default 0.15). */
  overlapRatio?: number;
}

/** See `chunking` in retrieval-profile.ts. */
export const DEFAULT_MAX_TOKENS = SHARED_PROFILE.chunking.maxTokens;
export const DEFAULT_OVERLAP_RATIO = SHARED_PROFILE.chunking.overlapRatio;

/** A run of blocks that becomes one or more chunks under one heading path. */
interface ChunkGroup {
  headingPath: string[];
  depth: number;
  anchor: string | null;
  blocks: SectionBlock[];
}

/** A piece that is never cut further while packing; `joiner` glues it to the piece before it. */
interface Unit {
  text: string;
  tokens: number;
  joiner: string;
  isCode: boolean;
}

const BLOCK_JOINER = '\n\n';

/**
 * Cuts a parsed page into chunks of at most `maxTokens` tokens. A section that
 * fits is one chunk; a longer one splits first at its H4–H6 headings (each part
 * then carries that heading in its path and anchor), then at block boundaries,
 * then between sentences, with some overlap between consecutive parts. Code
 * is never cut mid-line, and a fence too large for one chunk is split at line
 * boundaries with each part fenced again.
 */
export function chunkDocument(doc: ParsedDocument, options: ChunkOptions): Chunk[] {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const overlapRatio = options.overlapRatio ?? DEFAULT_OVERLAP_RATIO;
  const pageUrl = doc.url;
  const chunks: Chunk[] = [];

  for (const section of doc.sections) {
    if (!section.blocks.some((block) => block.kind !== 'heading' && block.text.trim() !== '')) continue;
    const whole = toGroup(section);
    const wholeBody = renderBody(section.blocks);
    const groups = fits(whole.headingPath, wholeBody, maxTokens) ? [whole] : splitAtSubheadings(section);
    let part = 0;
    for (const group of groups) {
      for (const body of packGroup(group, maxTokens, overlapRatio)) {
        const prefix = headingLine(group.headingPath, maxTokens);
        const indexText = `${prefix}${BLOCK_JOINER}${body}`;
        chunks.push({
          id: uuidV5(`${doc.file}\u0000${group.anchor ?? ''}\u0000${group.headingPath.join('\u0000')}\u0000${part}`),
          file: doc.file,
          docId: doc.docId,
          title: doc.title,
          heading: group.anchor === null ? null : (group.headingPath.at(-1) ?? null),
          headingPath: group.headingPath,
          depth: group.depth,
          anchor: group.anchor,
          url: group.anchor === null ? pageUrl : `${pageUrl}#${group.anchor}`,
          pageUrl,
          part,
          text: body,
          indexText,
          tokens: countTokens(indexText),
          hash: sha256Hex(indexText),
          fileHash: options.fileHash,
          order: chunks.length,
          ...(doc.source === undefined ? {} : { source: doc.source }),
        });
        part++;
      }
    }
  }
  return chunks;
}

function toGroup(section: DocumentSection): ChunkGroup {
  return { headingPath: section.headingPath, depth: section.depth, anchor: section.anchor, blocks: section.blocks };
}

function renderBody(blocks: SectionBlock[]): string {
  return blocks
    .map((block) => block.text)
    .filter((text) => text.trim() !== '')
    .join(BLOCK_JOINER);
}

function fits(headingPath: string[], body: string, maxTokens: number): boolean {
  return countTokens(`${headingLine(headingPath, maxTokens)}${BLOCK_JOINER}${body}`) <= maxTokens;
}

/**
 * `Title > Section > Subsection`. A heading path absurdly long for the budget
 * (a generated page, a fuzzed file) is cut to a quarter of it so a body still fits.
 */
function headingLine(headingPath: string[], maxTokens: number): string {
  const line = headingPath.join(' > ');
  const limit = Math.floor(maxTokens / 4);
  if (countTokens(line) <= limit) return line;
  return hardSplit(line, limit)[0] ?? '';
}

/** Splits a section at its H4–H6 headings; each part's path ends with the headings it sits under. */
function splitAtSubheadings(section: DocumentSection): ChunkGroup[] {
  const groups: ChunkGroup[] = [];
  const stack: Array<{ depth: number; text: string; anchor: string }> = [];
  let current: ChunkGroup = toGroup({ ...section, blocks: [] });
  groups.push(current);
  for (const block of section.blocks) {
    if (block.kind !== 'heading') {
      current.blocks.push(block);
      continue;
    }
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= block.depth) stack.pop();
    stack.push({ depth: block.depth, text: block.text, anchor: block.anchor });
    current = {
      headingPath: [...section.headingPath, ...stack.map((entry) => entry.text)],
      depth: block.depth,
      anchor: block.anchor,
      blocks: [],
    };
    groups.push(current);
  }
  return groups.filter((group) => group.blocks.some((block) => block.text.trim() !== ''));
}

/** Bodies for one group: the whole group when it fits, else packed units with overlap. */
function packGroup(group: ChunkGroup, maxTokens: number, overlapRatio: number): string[] {
  const body = renderBody(group.blocks);
  if (fits(group.headingPath, body, maxTokens)) return [body];
  const prefixTokens = countTokens(`${headingLine(group.headingPath, maxTokens)}${BLOCK_JOINER}`);
  let budget = maxTokens - prefixTokens;
  // The estimate is nearly additive; when joining pieces costs a little more than their sum,
  // repack with a smaller budget instead of ever emitting an oversized chunk.
  for (let attempt = 0; attempt < 8; attempt++) {
    const bodies = pack(toUnits(group.blocks, budget), budget, overlapRatio);
    const oversized = bodies.some((candidate) => !fits(group.headingPath, candidate, maxTokens));
    if (!oversized) return bodies;
    budget = Math.max(8, Math.floor(budget * 0.9));
  }
  return pack(toUnits(group.blocks, budget), budget, 0);
}

function toUnits(blocks: SectionBlock[], budget: number): Unit[] {
  const units: Unit[] = [];
  for (const block of blocks) {
    if (block.text.trim() === '') continue;
    const tokens = countTokens(block.text);
    if (block.kind === 'code') {
      const pieces = tokens <= budget ? [block.text] : splitCode(block.code, block.language, block.meta, budget);
      pieces.forEach((text) => units.push({ text, tokens: countTokens(text), joiner: BLOCK_JOINER, isCode: true }));
      continue;
    }
    if (tokens <= budget) {
      units.push({ text: block.text, tokens, joiner: BLOCK_JOINER, isCode: false });
      continue;
    }
    // Prose splits between sentences; lists and tables between their lines.
    const pieces = block.kind === 'text' ? splitSentences(block.text) : block.text.split('\n');
    const innerJoiner = block.kind === 'text' ? ' ' : '\n';
    let first = true;
    for (const piece of pieces) {
      for (const text of countTokens(piece) <= budget ? [piece] : hardSplit(piece, budget)) {
        units.push({ text, tokens: countTokens(text), joiner: first ? BLOCK_JOINER : innerJoiner, isCode: false });
        first = false;
      }
    }
  }
  return units;
}

function pack(units: Unit[], budget: number, overlapRatio: number): string[] {
  const parts: Unit[][] = [];
  let current: Unit[] = [];
  let currentTokens = 0;
  const overlapBudget = Math.floor(budget * overlapRatio);
  for (const unit of units) {
    const joinCost = current.length === 0 ? 0 : 1;
    if (current.length > 0 && currentTokens + joinCost + unit.tokens > budget) {
      parts.push(current);
      const carried = overlapTail(current, overlapBudget);
      const carriedTokens = carried.reduce((sum, piece) => sum + piece.tokens + 1, 0);
      // Overlap only when it leaves room for the new unit and carries something the new part lacks.
      const keep = carried.length > 0 && carried.length < current.length && carriedTokens + unit.tokens <= budget;
      current = keep ? carried : [];
      currentTokens = keep ? carriedTokens : 0;
    }
    current.push(unit);
    currentTokens += unit.tokens + (current.length > 1 ? 1 : 0);
  }
  if (current.length > 0) parts.push(current);
  return parts.map((part) =>
    part
      .map((unit, index) => (index === 0 ? unit.text : unit.joiner + unit.text))
      .join('')
      .trim(),
  );
}

/**
 * The prose at the end of a part, within `overlapBudget` tokens, to repeat at
 * the start of the next part. Code is never repeated; a long last paragraph
 * contributes its last sentences.
 */
function overlapTail(part: Unit[], overlapBudget: number): Unit[] {
  if (overlapBudget <= 0) return [];
  const tail: Unit[] = [];
  let tokens = 0;
  for (let index = part.length - 1; index >= 0; index--) {
    const unit = part[index];
    if (!unit || unit.isCode) break;
    if (tokens + unit.tokens <= overlapBudget) {
      tail.unshift(unit);
      tokens += unit.tokens + 1;
      continue;
    }
    if (tail.length === 0) {
      const sentences = splitSentences(unit.text);
      const picked: string[] = [];
      for (let sentenceIndex = sentences.length - 1; sentenceIndex > 0; sentenceIndex--) {
        const sentence = sentences[sentenceIndex] ?? '';
        const cost = countTokens(sentence) + 1;
        if (tokens + cost > overlapBudget) break;
        picked.unshift(sentence);
        tokens += cost;
      }
      if (picked.length > 0) {
        const text = picked.join(' ');
        tail.unshift({ text, tokens: countTokens(text), joiner: BLOCK_JOINER, isCode: false });
      }
    }
    break;
  }
  return tail;
}

const SENTENCE_END = /(?<=[.!?:;])\s+(?=[\p{Lu}\p{N}"'`([*_])|\n+/u;

function splitSentences(text: string): string[] {
  return text
    .split(SENTENCE_END)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

/** Last resort for a sentence or line longer than the budget: cut between words, or inside a word that is itself too long. */
function hardSplit(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let currentTokens = 0;
  for (const word of text.split(/(?<=\s)/)) {
    const wordTokens = countTokens(word);
    if (wordTokens > budget) {
      if (current.trim() !== '') pieces.push(current.trim());
      current = '';
      currentTokens = 0;
      pieces.push(...splitByCharacters(word, budget));
      continue;
    }
    if (currentTokens + wordTokens > budget && current.trim() !== '') {
      pieces.push(current.trim());
      current = '';
      currentTokens = 0;
    }
    current += word;
    currentTokens += wordTokens;
  }
  if (current.trim() !== '') pieces.push(current.trim());
  return pieces;
}

function splitByCharacters(word: string, budget: number): string[] {
  const pieces: string[] = [];
  const characters = Array.from(word);
  // One token is never more than a few characters, so `budget` characters always fit... but
  // symbols cost two tokens each, so take half of that to be sure.
  const size = Math.max(1, Math.floor(budget / 2));
  for (let start = 0; start < characters.length; start += size) pieces.push(characters.slice(start, start + size).join(''));
  return pieces;
}

/** Splits code that cannot fit one chunk at line boundaries, fencing each part again with its language and title. */
function splitCode(code: string, rawLanguage: string | null, rawMeta: string | null, budget: number): string[] {
  // Each part repeats the fence's info string, so one that is itself huge (a damaged file) is cut short.
  const infoLimit = Math.floor(budget / 8);
  const shorten = (info: string | null): string | null =>
    info !== null && countTokens(info) > infoLimit ? (splitByCharacters(info, infoLimit)[0] ?? null) : info;
  const language = shorten(rawLanguage);
  const meta = shorten(rawMeta);
  const overhead = countTokens(renderFence('', language, meta)) + 1;
  const lineBudget = Math.max(8, budget - overhead);
  const parts: string[] = [];
  let lines: string[] = [];
  let tokens = 0;
  const flush = (): void => {
    if (lines.length > 0) parts.push(renderFence(lines.join('\n'), language, meta));
    lines = [];
    tokens = 0;
  };
  for (const line of code.split('\n')) {
    const lineTokens = countTokens(line) + 1;
    if (lineTokens > lineBudget) {
      flush();
      for (const piece of hardSplit(line, lineBudget)) parts.push(renderFence(piece, language, meta));
      continue;
    }
    if (tokens + lineTokens > lineBudget) flush();
    lines.push(line);
    tokens += lineTokens;
  }
  flush();
  return parts;
}
