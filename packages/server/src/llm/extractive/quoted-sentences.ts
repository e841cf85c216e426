/**
 * Quoting by sentence: the best-matching sentences of the sources (or of the
 * reader's selection), each to stand alone in a quote. Used for the selection
 * and when a section has no structure to quote (one long paragraph).
 *
 * A sentence counts the rare question terms it holds, plus half of those its
 * section's heading holds (a sentence of the section titled "Adding your own
 * synonyms" is about synonyms even when it says "groups"), and the score
 * shrinks with the source's retrieval rank, which weighs far more evidence
 * than one sentence's words: a common verb of the question ("add") matched in
 * the fourth source must not push out the sentences of the first.
 */
import { analyzeTerms, tableCells } from '@docs-chat/core';
import { flattenInlineMarkup } from './block-markdown.js';

const MAX_SENTENCE_CHARS = 400;
const MIN_SENTENCE_CHARS = 15;
const RELATIVE_SCORE_THRESHOLD = 0.5;
/** Share of a question term's weight that a sentence gets when only its section heading holds the term. */
const HEADING_TERM_SHARE = 0.5;
/** Each step down the retrieval ranking keeps this share of a sentence's score. */
const SOURCE_RANK_DECAY = 0.8;

export interface Sentence {
  text: string;
  /** Source number for citations; 0 for the selection. */
  source: number;
  /** Position in its text, to quote in reading order. */
  position: number;
  terms: Set<string>;
  /** Terms of the section's heading (its own heading, not the page title); empty in selection mode. */
  headingTerms: Set<string>;
}

const CODE_SPAN = /`[^`\n]*`/g;

/** Whether a line is a table row: raw markdown (`| a | b |`) or as the ingest stores tables (`a | b`). */
function isTableRow(line: string): boolean {
  const outsideCode = line.replace(CODE_SPAN, '');
  return outsideCode.startsWith('|') || outsideCode.includes(' | ');
}

/**
 * A table row read aloud with its column names ("Variable: `PORT`; Default: `8000`; Meaning: ..."),
 * since a quote of raw `a | b | c` cells is unreadable once it stands alone in an answer.
 */
function describeTableRow(header: string[] | null, cells: string[]): string {
  return cells
    .map((cell, column) => {
      const name = header?.[column];
      return name ? `${name}: ${cell}` : cell;
    })
    .filter((part) => part !== '')
    .join('; ');
}

/** Cuts a quote to length without leaving a code span open (an open backtick would swallow the rest of the answer). */
function limitLength(text: string): string {
  if (text.length <= MAX_SENTENCE_CHARS) return text;
  let cut = text.slice(0, MAX_SENTENCE_CHARS);
  if ((cut.match(/`/g) ?? []).length % 2 === 1) cut = cut.slice(0, cut.lastIndexOf('`'));
  return `${cut.trimEnd()}…`;
}

/** Sentences of a prose segment; a full stop inside a code span (`a. B`) does not end one. */
export function splitProse(segment: string): string[] {
  const spans: string[] = [];
  const masked = segment.replace(/\s+/g, ' ').replace(CODE_SPAN, (span) => `\u0000${spans.push(span) - 1}\u0000`);
  return (
    masked
      // eslint-disable-next-line no-control-regex -- NUL marks a masked code span
      .split(/(?<=[.!?])\s+(?=[A-Z0-9`"'([*_\u0000])/)
      // eslint-disable-next-line no-control-regex -- NUL marks a masked code span
      .map((sentence) => sentence.replace(/\u0000(\d+)\u0000/g, (_, index: string) => spans[Number(index)] ?? '').trim())
  );
}

/** Prose sentences and table rows of a markdown text: code blocks and headings are skipped, markup is flattened. */
export function splitSentences(markdown: string): string[] {
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '\n\n');
  const sentences: string[] = [];
  const keep = (text: string): void => {
    if (text.length >= MIN_SENTENCE_CHARS) sentences.push(limitLength(text));
  };
  for (const block of withoutCode.split(/\n\s*\n/)) {
    // Wrapped prose lines join up; each list item starts a segment of its own; headings and MDX lines go;
    // each table row becomes one quote of its own, named by the table's header.
    const parts: { text: string; kind: 'prose' | 'list' | 'row' }[] = [];
    let header: string[] | null = null;
    let tableSeen = false;
    for (const rawLine of block.split('\n')) {
      const line = rawLine.trim();
      if (line === '' || /^(#{1,6}\s|(import|export)\s|<\/?[A-Za-z])/.test(line)) continue;
      if (isTableRow(line)) {
        const cells = tableCells(flattenInlineMarkup(line));
        if (cells.every((cell) => /^:?-{3,}:?$/.test(cell))) continue; // the | --- | --- | delimiter row
        if (!tableSeen) {
          tableSeen = true;
          // The first row of a block is the header, unless the block is a lone row of a table cut by chunking.
          if (block.split('\n').filter((candidate) => isTableRow(candidate.trim())).length > 1) {
            header = cells;
            continue;
          }
        }
        parts.push({ text: describeTableRow(header, cells), kind: 'row' });
        continue;
      }
      const listItem = /^([-*+]|\d+[.)])\s+/.exec(line);
      const text = flattenInlineMarkup(line.replace(/^>\s?/, '').replace(/^([-*+]|\d+[.)])\s+/, ''));
      const previous = parts[parts.length - 1];
      if (listItem || previous === undefined || previous.kind === 'row') parts.push({ text, kind: listItem ? 'list' : 'prose' });
      else previous.text += ` ${text}`;
    }
    for (const part of parts) {
      if (part.kind === 'row') keep(part.text);
      else for (const sentence of splitProse(part.text)) keep(sentence);
    }
  }
  return sentences;
}

export function toSentences(text: string, source: number, heading: string | null = null): Sentence[] {
  const headingTerms = new Set(heading === null ? [] : analyzeTerms(heading));
  return splitSentences(text).map((sentence, position) => ({
    text: sentence,
    source,
    position,
    terms: new Set(analyzeTerms(sentence)),
    headingTerms,
  }));
}

/**
 * Sum of the rarity of the question terms each sentence contains (rarer terms say more), half for a term
 * only its section heading holds, times SOURCE_RANK_DECAY per rank below the first source.
 */
function scoreSentences(sentences: Sentence[], questionTerms: Set<string>): Map<Sentence, number> {
  const documentFrequency = new Map<string, number>();
  for (const sentence of sentences) {
    for (const term of sentence.terms) {
      if (questionTerms.has(term)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  const scores = new Map<Sentence, number>();
  for (const sentence of sentences) {
    let score = 0;
    let headingScore = 0;
    for (const term of questionTerms) {
      const weight = Math.log(1 + sentences.length / (documentFrequency.get(term) ?? 1));
      if (sentence.terms.has(term)) score += weight;
      else if (sentence.headingTerms.has(term)) headingScore += HEADING_TERM_SHARE * weight;
    }
    // The heading only adds to a sentence that holds a question term itself: it ranks sentences, it cannot make one relevant.
    const total = score > 0 ? score + headingScore : 0;
    scores.set(sentence, total * SOURCE_RANK_DECAY ** Math.max(0, sentence.source - 1));
  }
  return scores;
}

function byReadingOrder(left: Sentence, right: Sentence): number {
  return left.source - right.source || left.position - right.position;
}

/** Picks the best-matching sentences: a few in all, a couple per source, in reading order. */
export function pickQuotes(sentences: Sentence[], questionTerms: Set<string>, limit: number, perSource: number): Sentence[] {
  const scores = scoreSentences(sentences, questionTerms);
  const best = Math.max(0, ...scores.values());
  // A sentence that shares only a common word with the question is noise next to one that shares the rare ones.
  const threshold = best * RELATIVE_SCORE_THRESHOLD;
  const ranked = sentences
    .filter((sentence) => (scores.get(sentence) ?? 0) > 0 && (scores.get(sentence) ?? 0) >= threshold)
    // Higher score first; on a tie the better-ranked source, then the earlier sentence.
    .sort((left, right) => (scores.get(right) ?? 0) - (scores.get(left) ?? 0) || byReadingOrder(left, right));
  const picked: Sentence[] = [];
  const perSourceCount = new Map<number, number>();
  for (const sentence of ranked) {
    if (picked.length >= limit) break;
    const count = perSourceCount.get(sentence.source) ?? 0;
    if (count >= perSource) continue;
    perSourceCount.set(sentence.source, count + 1);
    picked.push(sentence);
  }
  return picked.sort(byReadingOrder);
}

export function quote(text: string, citation: string): string {
  return `> ${text}${citation}`;
}
