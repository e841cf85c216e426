/**
 * When a retrieved chunk counts as a hit for an expected section: same file,
 * and either the expected heading is null and the chunk sits under no heading
 * deeper than the page title, or the heading is one of the chunk's heading
 * path entries, or it is an H4–H6 heading the chunk holds whole. Headings are
 * compared as rendered text, so inline markdown in the question file (`code`,
 * [links](...), *emphasis*) does not matter.
 */
import type { Chunk } from '@docs-chat/core';
import type { ExpectedSection } from './question-set.js';

export function renderedHeading(markdown: string): string {
  return markdown
    .replace(/\s*\{#[^}]*\}\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_]+)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What hit matching reads of a chunk. */
export type MatchedChunk = Pick<Chunk, 'file' | 'headingPath' | 'depth' | 'text'>;

/**
 * An H4–H6 heading is not a section of its own unless its section is too long for one chunk (see
 * chunk-document.ts): it stays inside its H2/H3 section's chunk, as a paragraph holding just the heading's
 * text. That chunk holds the whole subsection, so it counts as a hit for it.
 */
function holdsSubheading(chunk: MatchedChunk, wanted: string): boolean {
  return chunk.text.split(/\n\s*\n/).some((paragraph) => renderedHeading(paragraph) === wanted);
}

export function isHit(chunk: MatchedChunk, expected: ExpectedSection): boolean {
  if (chunk.file !== expected.file) return false;
  if (expected.heading === null) return chunk.depth <= 1;
  const wanted = renderedHeading(expected.heading);
  return chunk.headingPath.some((entry) => renderedHeading(entry) === wanted) || holdsSubheading(chunk, wanted);
}

export function matchesAny(chunk: MatchedChunk, expected: ExpectedSection[]): boolean {
  return expected.some((section) => isHit(chunk, section));
}

/** An expected section of a golden question that no section of the docs can ever match. */
export interface UnmatchedExpectation {
  id: string;
  file: string;
  heading: string | null;
  /** Why: the page is not in the docs, or none of its sections has that heading (or an introduction). */
  reason: 'no_such_page' | 'no_such_heading';
}

/**
 * Expected sections that no chunk of the corpus matches: a misspelt heading, a page that was renamed, or
 * docs that moved on since the questions were written. Each one is a question that can never count as
 * found, so it would lower recall silently; the evaluation lists them instead.
 */
export function unmatchedExpectations(
  questions: readonly { id: string; expected: readonly ExpectedSection[] }[],
  chunks: readonly MatchedChunk[],
): UnmatchedExpectation[] {
  const byFile = new Map<string, MatchedChunk[]>();
  for (const chunk of chunks) {
    const sections = byFile.get(chunk.file);
    if (sections) sections.push(chunk);
    else byFile.set(chunk.file, [chunk]);
  }
  const unmatched: UnmatchedExpectation[] = [];
  for (const question of questions) {
    for (const expected of question.expected) {
      const sections = byFile.get(expected.file);
      if (!sections) unmatched.push({ id: question.id, ...expected, reason: 'no_such_page' });
      else if (!sections.some((chunk) => isHit(chunk, expected)))
        unmatched.push({ id: question.id, ...expected, reason: 'no_such_heading' });
    }
  }
  return unmatched;
}

/** One line per unmatched expectation, saying what to fix. */
export function describeUnmatched(entry: UnmatchedExpectation, docsDir: string): string {
  return entry.reason === 'no_such_page'
    ? `${entry.id} expects a section of ${entry.file}, but ${docsDir} has no such page (a renamed or moved file?): fix "file" in the question file.`
    : entry.heading === null
      ? `${entry.id} expects the introduction of ${entry.file}, but that page has no text before its first heading: give the heading instead of null.`
      : `${entry.id} expects the heading "${entry.heading}" in ${entry.file}, but no heading of that page reads so: copy it from the markdown (without # and {#id}).`;
}
