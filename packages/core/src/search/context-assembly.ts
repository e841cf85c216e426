/**
 * Context for the LLM: numbered sources, each inside `<source id="n">` …
 * `</source>` tags with a `[n] Title > Heading (url)` line and their text, within a token budget.
 * The tags close every source, so text inside one cannot pass for instructions after it. When the budget is short the least
 * relevant sources go first; a single source too long for what is left is cut
 * at a paragraph or sentence boundary.
 */
import { countTokens } from '../protocol/token-budget.js';
import { SHARED_PROFILE } from '../profile/retrieval-profile.js';
import type { AssembledContext, ContextSource, PageOutlineEntry, SearchHit } from './search-types.js';
import { analysisOf } from './chunk-analysis.js';

/** See `context.tokenBudget` in retrieval-profile.ts. */
export const DEFAULT_CONTEXT_TOKEN_BUDGET = SHARED_PROFILE.context.tokenBudget;

function sourceHeader(number: number, hit: SearchHit): string {
  // A record without a URL (JSON records source) is cited by its id.
  return `[${number}] ${hit.chunk.headingPath.join(' > ')} (${hit.chunk.url || `id ${hit.chunk.docId}`})`;
}

/** Neutralises tag look-alikes in a source, so it cannot close its own block (or open another) early. */
export function escapeSourceText(text: string): string {
  return text.replace(/<(\/?)(source)\b/gi, '<$1$2-text');
}

function sourceBlock(number: number, header: string, body: string): string {
  return `<source id="${number}">\n${escapeSourceText(header)}\n${escapeSourceText(body)}\n</source>`;
}

/** Tokens the opening and closing tags add to each source. */
const SOURCE_TAG_TOKENS = countTokens(sourceBlock(1, '', ''));

/**
 * The text cut at the last paragraph or sentence end within `budget` tokens.
 * Pieces are counted one by one: cutting a text never merges two tokens, so
 * their sum is at least the kept text's count and the cut never overshoots
 * (counting the kept text again for every piece made long sources quadratic).
 */
function truncateToTokens(text: string, budget: number): string {
  const pieces = text.split(/(?<=\n\n)|(?<=[.!?]\s)/);
  let kept = '';
  let keptTokens = 0;
  for (const piece of pieces) {
    const pieceTokens = countTokens(piece);
    if (keptTokens + pieceTokens > budget) break;
    kept += piece;
    keptTokens += pieceTokens;
  }
  return `${kept.trimEnd()} …`;
}

/** The outline as one line of the source: the page's sections in order. */
function outlineLine(outline: readonly PageOutlineEntry[]): string {
  return `Sections of this page, in order: ${outline.map((entry) => entry.heading).join('; ')}.`;
}

export function assembleContext(hits: SearchHit[], options: { tokenBudget?: number } = {}): AssembledContext {
  const budget = options.tokenBudget ?? DEFAULT_CONTEXT_TOKEN_BUDGET;
  const ordered = [...hits].sort((a, b) => a.rank - b.rank);
  const blocks: string[] = [];
  const sources: ContextSource[] = [];
  let used = 0;
  let dropped = 0;
  for (const hit of ordered) {
    const number = sources.length + 1;
    const header = sourceHeader(number, hit);
    const headerTokens = countTokens(header) + SOURCE_TAG_TOKENS;
    const remaining = budget - used - headerTokens;
    // A source needs room for a useful amount of text; otherwise it is dropped.
    // Counted once per section and kept (chunk-analysis.ts): the same sections are cited answer after answer.
    const textTokens = analysisOf(hit.chunk).textTokens;
    if (remaining < Math.min(80, textTokens)) {
      dropped += 1;
      continue;
    }
    const whole = textTokens <= remaining;
    let body = whole ? hit.chunk.text : truncateToTokens(hit.chunk.text, remaining);
    let bodyTokens = whole ? textTokens : countTokens(body);
    // A page's opening tells the model which sections follow it, when there is room for the list.
    const outline = hit.outline && hit.outline.length > 0 ? outlineLine(hit.outline) : null;
    const outlineTokens = outline === null ? 0 : countTokens(outline);
    const withOutline = outline !== null && whole && bodyTokens + outlineTokens <= remaining;
    if (withOutline) {
      body = `${body}\n\n${outline}`;
      bodyTokens += outlineTokens;
    }
    blocks.push(sourceBlock(number, header, body));
    used += headerTokens + bodyTokens;
    sources.push({ number, chunk: hit.chunk, score: hit.score, ...(withOutline && hit.outline ? { outline: hit.outline } : {}) });
  }
  return { text: blocks.join('\n\n'), sources, tokens: used, dropped };
}
