/**
 * Which source each `[n]` of an answer points to. While an answer streams,
 * its sources are the `sources` event's list: source n is the n-th. Once it
 * is done (and in a saved conversation), the server keeps only the sources
 * the answer cites, in order of first citation, so an answer citing [2] and
 * [4] comes with two sources; they are paired with its citations in that
 * order. The server reads citations as this parser does (never in code).
 */
import type { SourceRef } from '@docs-chat/protocol';
import type { BlockNode, InlineNode } from './markdown/markdown-ast.js';
import { parseMarkdown } from './markdown/parse-markdown.js';

/** A source and the number the answer's citations use for it. */
export interface NumberedSource {
  number: number;
  source: SourceRef;
}

function inlineCitations(nodes: InlineNode[], found: number[]): void {
  for (const node of nodes) {
    if (node.type === 'citation') {
      if (!found.includes(node.index)) found.push(node.index);
    } else if ('children' in node) inlineCitations(node.children, found);
  }
}

function blockCitations(blocks: BlockNode[], found: number[]): void {
  for (const block of blocks) {
    switch (block.type) {
      case 'paragraph':
      case 'heading':
        inlineCitations(block.children, found);
        break;
      case 'list':
        for (const item of block.items) blockCitations(item, found);
        break;
      case 'blockquote':
        blockCitations(block.children, found);
        break;
      case 'table':
        for (const row of [block.header, ...block.rows]) for (const cell of row) inlineCitations(cell, found);
        break;
      case 'code':
      case 'thematicBreak':
        break;
    }
  }
}

/** The citation numbers of an answer in order of first appearance. */
export function citationNumbers(markdown: string): number[] {
  const found: number[] = [];
  blockCitations(parseMarkdown(markdown), found);
  return found;
}

/**
 * Numbers an answer's sources as its citations do. `citedOnly` says the list is the server's final one (the
 * cited sources in order of first citation); when the answer's citations do not match it one for one (the server
 * sent every source because the answer cites none it knows), sources are numbered from 1.
 */
export function numberSources(markdown: string, sources: readonly SourceRef[], citedOnly: boolean): NumberedSource[] {
  if (citedOnly) {
    const numbers = citationNumbers(markdown);
    if (numbers.length === sources.length) return sources.map((source, index) => ({ number: numbers[index] ?? index + 1, source }));
  }
  return sources.map((source, index) => ({ number: index + 1, source }));
}
