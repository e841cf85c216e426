import { makeChunk } from '../stores/vector-store.conformance.js';
import type { ChunkPayload, HybridResult } from '../stores/vector-store.js';
import { emptyTermStatistics, countChunk } from '../text/term-statistics.js';
import { rerankCandidates } from './rerank.js';
import { retrievalProfileFor } from '../profile/retrieval-profile.js';

/** A chunk of the `widgets` page: its intro (no heading) or a section under `heading`. */
function widgetChunk(n: number, heading: string | null, text: string): ChunkPayload {
  const base = makeChunk(n, 'api/createWidget.md', heading === null ? 0 : n);
  const headingPath = heading === null ? ['createWidget'] : ['createWidget', heading];
  return { ...base, title: 'createWidget', heading, headingPath, text, indexText: `${headingPath.join(' > ')}\n\n${text}` };
}

/** Candidates that tie on every list (same BM25, cosine and page score), so headings decide. */
function tiedResult(chunks: ChunkPayload[]): HybridResult {
  return {
    fused: chunks.map((payload, i) => ({ id: payload.id, score: 1 / (i + 2), payload })),
    sparse: chunks.map((payload) => ({ id: payload.id, score: 5 })),
    dense: chunks.map((payload) => ({ id: payload.id, score: 0.5 })),
    pages: [{ file: 'api/createWidget.md', score: 3 }],
  };
}

describe('re-ranking by headings', () => {
  const intro = widgetChunk(1, null, 'createWidget builds a widget from a template and options.');
  const argumentsSection = widgetChunk(2, 'Arguments', 'The template to render and an options object.');
  const returns = widgetChunk(3, 'Return value', 'A widget instance with render and destroy methods.');
  const stats = emptyTermStatistics();
  for (const chunk of [intro, argumentsSection, returns]) countChunk(stats, chunk, 1);
  // Other pages of the site, so the words are not all equally rare.
  for (let n = 10; n < 40; n++) countChunk(stats, widgetChunk(n, `Topic ${n}`, 'Other widgets and their options.'), 1);

  it('reads a section heading with its page title: "Arguments" of createWidget answers a question about createWidget arguments, above the page intro', () => {
    const ranked = rerankCandidates(
      'What arguments does createWidget take?',
      tiedResult([intro, returns, argumentsSection]),
      stats,
      retrievalProfileFor('local').ranking,
    );
    expect(ranked.map((candidate) => candidate.payload.heading)).toEqual(['Arguments', 'Return value', null]);
  });
});
