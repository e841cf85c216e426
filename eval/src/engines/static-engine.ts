/**
 * `pnpm eval --engine static`: the in-browser search engine, the very code the
 * plugin ships, run in Node over a static index, behind the retriever
 * interface the evaluation scores.
 */
import type { Chunk, Retriever, SearchResponse } from '@docs-chat/core';
import type { SearchIndexFile } from '../../../packages/docusaurus-plugin/src/static-search/index-format.js';
import { createSearchEngine } from '../../../packages/docusaurus-plugin/src/static-search/search-engine.js';

/** `chunkOfSection(i)` says which file and heading path section i of the index stands for. */
export function staticEngineRetriever(index: SearchIndexFile, chunkOfSection: (section: number) => Chunk): Pick<Retriever, 'search'> {
  const engine = createSearchEngine(index);
  return {
    async search(query, options = {}): Promise<SearchResponse> {
      const { hits } = engine.search(query, { limit: options.k ?? 5 });
      return {
        hits: hits.map((hit, position) => ({ rank: position + 1, score: hit.score, chunk: chunkOfSection(hit.section) })),
        // The browser engine has no out-of-scope check: it always lists what matched.
        outOfScope: false,
        confidence: 0,
      };
    },
  };
}
