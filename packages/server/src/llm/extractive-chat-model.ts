/**
 * The chat model used when no language model is configured: it answers with
 * what the docs say, quoted. It quotes the best-ranked retrieved section (with
 * its other retrieved parts) by its structure (see `extractive/section-excerpt.ts`):
 * a how-to gets the section's steps and code, a pasted error the section that
 * names it with its fix, anything else the section's opening. The quote is
 * labelled as coming from the docs and cites its source; other sections that
 * match well are cited after it. A section that is one long paragraph, and the
 * reader's selection, are quoted by their best sentences. It never calls the
 * network, and says nothing about configuration to readers: that is for /health
 * and the start-up log.
 */
import type { ChatModel, ChatModelEvent, ChatModelRequest, ContextSource } from './chat-model.js';
import { LlmError } from './chat-model.js';
import { analyzeTerms, readChunkBlocks, type PageOutlineEntry } from '@docs-chat/core';
import { proseMarkdown } from './extractive/block-markdown.js';
import { classifyQuestion } from './extractive/question-intent.js';
import {
  DEFAULT_EXCERPT_LIMITS,
  excerptSection,
  opensWithWallOfProse,
  type Excerpt,
  type QuotableBlock,
} from './extractive/section-excerpt.js';
import { pickQuotes, quote, toSentences, type Sentence } from './extractive/quoted-sentences.js';

export const EXTRACTIVE_MODEL = 'extractive';

/** Opens an answer quoted sentence by sentence. */
export const SOURCES_INTRO = 'From the docs:';
/** Opens an answer in selection mode, which quotes only the highlighted passage. */
export const SELECTION_INTRO = 'From your selection:';
export const NOTHING_FOUND = 'No passage of the docs matches this question.';

const MAX_QUOTES = 4;
const MAX_QUOTES_PER_SOURCE = 2;
const MAX_SELECTION_QUOTES = 3;
const MAX_SELECTION_CHARS = 400;
/** Extra share of a question term's weight when the section's heading path holds the term. */
const HEADING_TERM_BONUS = 0.5;
/** Each step down the retrieval ranking keeps this share of a section's score. */
const SECTION_RANK_DECAY = 0.8;
/** Other sections scoring at least this share of the quoted one's are cited after it, at most SEE_ALSO_LIMIT. */
const SEE_ALSO_SHARE = 0.6;
const SEE_ALSO_LIMIT = 2;

/** One section of the docs as retrieved: the chunks of it that retrieval returned, in reading order. */
interface RetrievedSection {
  parts: ContextSource[];
  blocks: QuotableBlock[];
  /** Best (lowest) source number among its parts: its retrieval rank. */
  rank: number;
  score: number;
}

/**
 * Whether `next` (the chunk right after `previous` on the page) continues its section: another part of it, or a
 * sub-section of it. A page's opening counts as a section here only when it ends announcing what follows
 * ("... three principles:"); otherwise the page's first section is a topic of its own.
 */
function continues(previous: ContextSource, next: ContextSource): boolean {
  const section = previous.chunk.headingPath;
  const path = next.chunk.headingPath;
  if (!section.every((heading, index) => path[index] === heading)) return false;
  return path.length === section.length || section.length > 1 || /:\s*$/.test(previous.chunk.text);
}

/**
 * The retrieved sources as sections, best-ranked first. A section gathers, around its best-ranked chunk, the
 * retrieved chunks that continue it on the page: its other parts and its sub-sections (a chunk of the same file
 * right after it whose heading path extends its own), so steps split from their introduction are quoted with it.
 */
function groupSections(sources: ContextSource[]): RetrievedSection[] {
  const byPosition = new Map(sources.map((source) => [`${source.chunk.file}\u0000${source.chunk.order}`, source]));
  const at = (file: string, order: number): ContextSource | undefined => byPosition.get(`${file}\u0000${order}`);
  const used = new Set<ContextSource>();
  const sections: RetrievedSection[] = [];
  for (const source of [...sources].sort((left, right) => left.number - right.number)) {
    if (used.has(source)) continue;
    const { file } = source.chunk;
    // Earlier chunks are read first when they are parts of the same section, or announce it ("... as follows:"),
    // and only while the quote can still reach the best-ranked chunk.
    let first = source;
    let size = source.chunk.text.length;
    const leadsInto = (previous: ContextSource, next: ContextSource): boolean =>
      continues(previous, next) &&
      (previous.chunk.headingPath.length === next.chunk.headingPath.length || /:\s*$/.test(previous.chunk.text));
    for (
      let previous = at(file, first.chunk.order - 1);
      previous &&
      !used.has(previous) &&
      leadsInto(previous, first) &&
      size + previous.chunk.text.length <= DEFAULT_EXCERPT_LIMITS.budgetChars;
      previous = at(file, previous.chunk.order - 1)
    ) {
      first = previous;
      size += previous.chunk.text.length;
    }
    const parts = [first];
    for (
      let next = at(file, first.chunk.order + 1);
      next && !used.has(next) && continues(first, next);
      next = at(file, next.chunk.order + 1)
    ) {
      parts.push(next);
    }
    if (!parts.includes(source)) parts.splice(0, parts.length, source);
    for (const part of parts) used.add(part);
    sections.push({ parts, blocks: sectionBlocks(parts), rank: Math.min(...parts.map((part) => part.number)), score: 0 });
  }
  return sections;
}

/**
 * How many blocks at the start of a part repeat the end of the part before it: the chunker carries the last
 * blocks of a part (or the last sentences of its last paragraph) over to the next one.
 */
function repeatedBlocks(before: QuotableBlock[], part: QuotableBlock[]): number {
  const same = (left: QuotableBlock | undefined, right: QuotableBlock | undefined): boolean =>
    JSON.stringify(left?.block) === JSON.stringify(right?.block);
  for (let count = Math.min(before.length, part.length); count > 0; count--) {
    if (part.slice(0, count).every((block, index) => same(block, before[before.length - count + index]))) return count;
  }
  const last = before[before.length - 1]?.block;
  const first = part[0]?.block;
  return last?.kind === 'text' && first?.kind === 'text' && last.text.includes(first.text) ? 1 : 0;
}

/**
 * The blocks of a section's chunks in reading order: a sub-section opens with its heading, and the prose the
 * chunker repeats at the start of a part (its overlap with the part before) is read once.
 */
function sectionBlocks(parts: ContextSource[]): QuotableBlock[] {
  const blocks: QuotableBlock[] = [];
  const rootDepth = parts[0]?.chunk.headingPath.length ?? 0;
  let previousPath: string[] | null = null;
  for (const part of parts) {
    const path = part.chunk.headingPath;
    const samePath = previousPath !== null && previousPath.join('\u0000') === path.join('\u0000');
    const read = readChunkBlocks(part.chunk.text).map((block) => ({ block, source: part.number }));
    if (samePath) {
      read.splice(0, repeatedBlocks(blocks, read));
      const last = blocks[blocks.length - 1];
      const opening = read[0];
      if (
        last?.block.kind === 'code' &&
        opening?.block.kind === 'code' &&
        last.block.language === opening.block.language &&
        last.block.meta === opening.block.meta
      ) {
        // A code block too long for one chunk was split at line boundaries, each piece fenced again: join it back.
        last.block = { ...last.block, code: `${last.block.code}\n${opening.block.code}` };
        read.shift();
      }
    } else if (previousPath !== null && path.length > rootDepth) {
      // A sub-section starts: its heading says what the blocks below it are about.
      const heading = path[path.length - 1];
      if (heading !== undefined) blocks.push({ block: { kind: 'heading', text: heading }, source: part.number });
    }
    blocks.push(...read);
    previousPath = path;
  }
  return blocks;
}

function sectionText(section: RetrievedSection): string {
  return section.parts.map((part) => part.chunk.text).join('\n\n');
}

/**
 * Scores sections by the question terms they hold, rarer terms (among the retrieved sections) weighing more and
 * terms of the heading path counting extra, times SECTION_RANK_DECAY per rank below the first: which other
 * sections are worth citing after the quoted one.
 */
function scoreSections(sections: RetrievedSection[], question: string): void {
  const questionTerms = new Set(analyzeTerms(question));
  const analysed = sections.map((section) => ({
    body: new Set(analyzeTerms(sectionText(section))),
    heading: new Set(analyzeTerms(section.parts[0]?.chunk.headingPath.join(' ') ?? '')),
  }));
  const frequency = (term: string): number => analysed.filter(({ body, heading }) => body.has(term) || heading.has(term)).length;
  sections.forEach((section, index) => {
    const { body, heading } = analysed[index] ?? { body: new Set<string>(), heading: new Set<string>() };
    let score = 0;
    for (const term of questionTerms) {
      const found = frequency(term);
      if (found === 0) continue;
      const weight = Math.log(1 + sections.length / found);
      if (body.has(term) || heading.has(term)) score += weight;
      if (heading.has(term)) score += HEADING_TERM_BONUS * weight;
    }
    section.score = score * SECTION_RANK_DECAY ** (section.rank - 1);
  });
}

/** `Title › Heading`, or the title alone for a page's opening. */
function sectionName(section: RetrievedSection): string {
  const chunk = section.parts[0]?.chunk;
  if (!chunk) return '';
  const heading = chunk.heading ?? (chunk.headingPath.length > 1 ? chunk.headingPath[chunk.headingPath.length - 1] : null);
  return heading && heading !== chunk.title ? `${chunk.title} › ${heading}` : chunk.title;
}

function citations(numbers: number[]): string {
  return numbers.map((number) => `[${number}]`).join('');
}

function seeAlso(sections: RetrievedSection[], quoted: RetrievedSection): string | null {
  const others = sections
    .filter((section) => section !== quoted && section.score > 0 && section.score >= SEE_ALSO_SHARE * quoted.score)
    .slice(0, SEE_ALSO_LIMIT)
    .map((section) => `[${section.rank}]`);
  if (others.length === 0) return null;
  return `See also ${others.length === 1 ? others[0] : `${others.slice(0, -1).join(', ')} and ${others[others.length - 1]}`}.`;
}

function selectionAnswer(question: string, selection: string): string {
  const sentences = toSentences(selection, 0);
  let quotes = pickQuotes(sentences, new Set(analyzeTerms(question)), MAX_SELECTION_QUOTES, MAX_SELECTION_QUOTES);
  // Nothing in common with the question: the start of the selection is still what the reader pointed at.
  if (quotes.length === 0) quotes = sentences.slice(0, 2);
  const texts = quotes.length > 0 ? quotes.map((sentence) => sentence.text) : [selection.trim().slice(0, MAX_SELECTION_CHARS)];
  return [SELECTION_INTRO, ...texts.map((text) => quote(proseMarkdown(text), ''))].join('\n\n');
}

/** The best sentences of all sources, each quoted with its citation: for sections with no structure to quote by. */
function sentencesAnswer(question: string, sources: ContextSource[]): string | null {
  const sentences = sources.flatMap((source) => toSentences(source.chunk.text, source.number, source.chunk.heading));
  let quotes = pickQuotes(sentences, new Set(analyzeTerms(question)), MAX_QUOTES, MAX_QUOTES_PER_SOURCE);
  if (quotes.length === 0) {
    // Retrieval found these sections for a reason even without shared words (synonyms, embeddings): quote their openings.
    quotes = sources
      .slice(0, 2)
      .map((source) => sentences.find((sentence) => sentence.source === source.number))
      .filter((sentence): sentence is Sentence => sentence !== undefined);
  }
  if (quotes.length === 0) return null;
  return [SOURCES_INTRO, ...quotes.map((sentence) => quote(proseMarkdown(sentence.text), ` [${sentence.source}]`))].join('\n\n');
}

/** The sections after a page's opening, as a numbered list of links to them. */
function outlineMarkdown(outline: readonly PageOutlineEntry[]): string {
  // Headings are plain text: only the characters that would end the link text are escaped.
  const items = outline.map((entry, index) => `${index + 1}. [${entry.heading.replace(/[[\]\\]/g, '\\$&')}](<${entry.url}>)`);
  return ['The page goes on with:', ...items].join('\n');
}

/** The whole extractive answer for a request, and how it finished. */
export function composeExtractiveAnswer(request: Pick<ChatModelRequest, 'question' | 'sources' | 'selection'>): {
  text: string;
  found: boolean;
} {
  if (request.selection !== undefined && request.selection.trim() !== '') {
    return { text: selectionAnswer(request.question, request.selection), found: true };
  }
  const sections = groupSections(request.sources);
  if (sections.length === 0) return { text: NOTHING_FOUND, found: false };
  scoreSections(sections, request.question);
  const intent = classifyQuestion(request.question);
  const questionTerms = new Set(analyzeTerms(request.question));
  // The best-ranked section is quoted: on the dev sets retrieval's first section was an expected one more often
  // than any re-ranking by the question's words (0.60 against 0.47 on redux, measured with eval/src/extractive-answers.ts).
  // The next one is quoted only when the first holds nothing worth quoting (a lone sentence announcing a list it lacks).
  let quoted: { section: RetrievedSection; excerpt: Excerpt } | null = null;
  for (const section of sections) {
    if (opensWithWallOfProse(section.blocks)) break;
    const excerpt = excerptSection(section.blocks, intent, questionTerms);
    if (excerpt !== null) {
      quoted = { section, excerpt };
      break;
    }
  }
  if (quoted === null) {
    const text = sentencesAnswer(request.question, request.sources);
    return text === null ? { text: NOTHING_FOUND, found: false } : { text, found: true };
  }
  const { section: best, excerpt } = quoted;
  const lines = [`From the docs, **${proseMarkdown(sectionName(best))}** ${citations(excerpt.sources)}:`, excerpt.markdown];
  if (excerpt.shortened) lines.push(`Read the whole section in the docs ${citations(excerpt.sources.slice(0, 1))}.`);
  // A how-to answered by a guide's opening alone: its steps are the page's sections, so lay them out with their
  // links (an opening quoted with the sections it announces already holds them).
  const outline = intent === 'how-to' && best.parts.length === 1 ? best.parts[0]?.outline : undefined;
  if (outline && outline.length > 0) lines.push(outlineMarkdown(outline));
  const also = seeAlso(sections, best);
  if (also !== null) lines.push(also);
  return { text: lines.join('\n\n'), found: true };
}

/** Splits text into pieces of a few words that join back exactly. */
export function streamPieces(text: string, wordsPerPiece = 4): string[] {
  const words = text.match(/\s*\S+/g) ?? [];
  const pieces: string[] = [];
  for (let index = 0; index < words.length; index += wordsPerPiece) pieces.push(words.slice(index, index + wordsPerPiece).join(''));
  return pieces;
}

export function createExtractiveChatModel(): ChatModel {
  return {
    provider: 'extractive',
    model: EXTRACTIVE_MODEL,
    async verify(): Promise<void> {
      // Nothing to check: no key, no network.
    },
    async *stream(request: ChatModelRequest): AsyncGenerator<ChatModelEvent> {
      const answer = composeExtractiveAnswer(request);
      for (const piece of streamPieces(answer.text)) {
        if (request.signal.aborted) throw new LlmError('aborted', 'The request was cancelled.');
        yield { type: 'text', text: piece };
        // Let the event loop flush each piece to the reader, as a model's stream would.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      yield { type: 'finish', reason: answer.found ? 'stop' : 'no_answer', usage: null };
    },
  };
}
