/**
 * When a retrieved chunk counts as a hit for an expected section: same file,
 * and either the expected heading is null and the chunk sits under no heading
 * deeper than the page title, or the heading is one of the chunk's heading
 * path entries. Headings are compared as rendered text, so inline markdown in
 * the question file (`code`, [links](...), *emphasis*) does not matter.
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

export function isHit(chunk: Pick<Chunk, 'file' | 'headingPath' | 'depth'>, expected: ExpectedSection): boolean {
  if (chunk.file !== expected.file) return false;
  if (expected.heading === null) return chunk.depth <= 1;
  const wanted = renderedHeading(expected.heading);
  return chunk.headingPath.some((entry) => renderedHeading(entry) === wanted);
}

export function matchesAny(chunk: Pick<Chunk, 'file' | 'headingPath' | 'depth'>, expected: ExpectedSection[]): boolean {
  return expected.some((section) => isHit(chunk, section));
}
