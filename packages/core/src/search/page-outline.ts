/**
 * A page's opening often answers "how do I …" by announcing a guide whose steps are its sections ("This guide
 * adds the widget to your site…", then "Install the plugin package", "Register the plugin"…). Retrieval rightly
 * ranks that opening first, but the opening alone holds no steps. The best hit, when it is a page's opening,
 * carries the page's outline (its H2 sections in order), so the model, or the no-key answer, can lay out the
 * path and link each step.
 */
import type { Chunk } from '../markdown/document.js';
import type { PageOutlineEntry, Retriever, SearchHit } from './search-types.js';

/** Most sections an outline lists: about a screen of the chat panel. */
export const MAX_OUTLINE_ENTRIES = 12;

/** Whether a chunk is a docs page's opening: the text under its title, before any section (a JSON record is not a page). */
export function isPageOpening(chunk: Pick<Chunk, 'headingPath' | 'part' | 'source' | 'url'>): boolean {
  return chunk.headingPath.length === 1 && chunk.part === 0 && chunk.url !== '' && !(chunk.source ?? '').startsWith('records:');
}

/** The page's top-level sections in reading order (each once, by its first part), with their URLs. */
export function pageOutline(page: readonly Chunk[]): PageOutlineEntry[] {
  const outline: PageOutlineEntry[] = [];
  for (const chunk of [...page].sort((a, b) => a.order - b.order)) {
    const heading = chunk.headingPath[1];
    if (chunk.headingPath.length !== 2 || chunk.part !== 0 || heading === undefined || chunk.url === '') continue;
    outline.push({ heading, url: chunk.url });
    if (outline.length === MAX_OUTLINE_ENTRIES) break;
  }
  return outline;
}

/**
 * The hits, the best one with its page's outline when it is a page's opening and the page has at least two
 * sections. One read of that page from the store; when the read fails (or is cancelled) the hits go on without
 * an outline, which only ever adds to an answer.
 */
export async function withPageOutline(
  hits: SearchHit[],
  retriever: Pick<Retriever, 'documentOf'>,
  signal?: AbortSignal,
): Promise<SearchHit[]> {
  const best = hits.find((hit) => hit.rank === 1) ?? hits[0];
  if (!best || !isPageOpening(best.chunk)) return hits;
  let page: Chunk[];
  try {
    page = await retriever.documentOf(best.chunk.id, signal);
  } catch {
    return hits;
  }
  const outline = pageOutline(page);
  if (outline.length < 2) return hits;
  return hits.map((hit) => (hit === best ? { ...hit, outline } : hit));
}
