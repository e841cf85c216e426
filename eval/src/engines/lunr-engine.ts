/**
 * `pnpm eval --engine lunr`: the baseline the in-browser engine must beat, a
 * plain lunr index over the same heading sections, as the popular Docusaurus
 * local-search plugins build it (page title, headings and text as fields,
 * lunr's English stemmer and stop words, no boosts), queried with the
 * question's words as optional terms.
 */
import lunr from 'lunr';
import type { Chunk, Retriever, SearchResponse } from '@docs-chat/core';
import type { SearchIndexFile } from '../../../packages/docusaurus-plugin/src/static-search/index-format.js';

export function lunrRetriever(index: SearchIndexFile, chunkOfSection: (section: number) => Chunk): Pick<Retriever, 'search'> {
  const built = lunr(function build() {
    this.ref('section');
    this.field('title');
    this.field('headings');
    this.field('text');
    index.sections.forEach(([page, , headings, , text], section) => {
      this.add({ section: String(section), title: index.pages[page]?.[1] ?? '', headings: headings.join(' '), text });
    });
  });
  return {
    async search(question, options = {}): Promise<SearchResponse> {
      const k = options.k ?? 5;
      // Terms through lunr's own tokenizer, added as clauses (the query-string syntax would
      // read `:`, `-`, `+`, `~` and `^` in a question as operators).
      const words = lunr
        .tokenizer(question)
        .map((token) => token.toString().replace(/[^\p{L}\p{N}_$.-]/gu, ''))
        .filter((word) => word.length > 0);
      const results = built.query((query) => {
        for (const word of words) query.term(word, { presence: lunr.Query.presence.OPTIONAL });
      });
      const hits: SearchResponse['hits'] = [];
      const seen = new Set<string>();
      for (const result of results) {
        const chunk = chunkOfSection(Number(result.ref));
        if (seen.has(chunk.url)) continue;
        seen.add(chunk.url);
        hits.push({ rank: hits.length + 1, score: result.score, chunk });
        if (hits.length >= k) break;
      }
      return { hits, outOfScope: false, confidence: 0 };
    },
  };
}
