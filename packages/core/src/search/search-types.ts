/** Types of the retrieval API that the server and the CLI call. */
import type { Chunk } from '../markdown/document.js';
import type { SearchFilter } from '../stores/vector-store.js';
import type { AppliedScope, RequestedScope } from './site-scope.js';

export type { AppliedScope, RequestedScope } from './site-scope.js';

export interface SearchOptions {
  /** Number of chunks wanted (default 5). */
  k?: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
  /** Also return why the results and the out-of-scope verdict are what they are (`explanation`). */
  explain?: boolean;
  /**
   * The reader's docs version and locale. On an index of a whole site the search keeps to them (to the last
   * version and the default locale when unset) unless the question names another version; ignored otherwise.
   */
  scope?: RequestedScope;
}

export interface SearchHit {
  /** 1-based rank. */
  rank: number;
  /** Re-ranked relevance score (see rerank.ts): comparable only within one result list. */
  score: number;
  chunk: Chunk;
  /** When the hit is a page's opening: the page's sections that follow it (page-outline.ts). */
  outline?: PageOutlineEntry[];
}

/** One section of a page, as an outline lists it. */
export interface PageOutlineEntry {
  heading: string;
  /** The section's URL, anchor included. */
  url: string;
}

export interface SearchResponse {
  hits: SearchHit[];
  /** True when the calibrated check judged that nothing in the docs answers the question. */
  outOfScope: boolean;
  /** 0..1 confidence that the best hit is relevant; the out-of-scope decision thresholds it. */
  confidence: number;
  /** Present when the search was asked to `explain`. */
  explanation?: SearchExplanation;
  /** The version and locale searched, on an index of a whole site. */
  scope?: AppliedScope;
}

/** A word searched for besides the question's own, and why. */
export interface AddedTerm {
  /** The analysed (stemmed) word, as the index holds it. */
  term: string;
  /** Its weight in the query, relative to 1 for a word of the question. */
  weight: number;
  /** `synonym`: from the thesaurus (built in or SEARCH_SYNONYMS_FILE); `learned`: a word the docs use near a question word. */
  source: 'synonym' | 'learned';
}

/** What decided a search: the words added to the question and the signals of the out-of-scope check. */
export interface SearchExplanation {
  /** The question's own analysed words (stemmed, stop words removed). */
  questionTerms: string[];
  addedTerms: AddedTerm[];
  scope: {
    /** Share of the question's informative words (IDF-weighted) that the docs use anywhere. */
    vocabulary: number;
    /** Share of them found in the best few sections. */
    coverage: number;
    /** Best dense cosine. */
    dense: number;
    /** Names in the question that none of the best sections mentions. */
    missingNames: string[];
    /** Names the docs mention, but never together with the question's other informative words. */
    lonelyNames: string[];
    /** Out of scope below this vocabulary share. */
    minVocabulary: number;
    /** Out of scope below this sum of coverage and dense. */
    minEvidence: number;
    /** Out of scope below this best dense cosine (0: the rule is off for this index)... */
    minDense: number;
    /** ...unless the best sections hold at least this share of the question's words (`coverage`). */
    denseVetoCoverage: number;
  };
  /** What was searched for when the question was too long to search with as it is (question-parts.ts). */
  condensedQuestion?: string;
}

/** Hybrid retrieval over one index. */
export interface Retriever {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /** Chunks before and after a chunk in its document, in document order (the chunk included). */
  neighbours(chunkId: string, options?: { before?: number; after?: number; signal?: AbortSignal }): Promise<Chunk[]>;
  /** Every chunk of the document that holds this chunk, in order. */
  documentOf(chunkId: string, signal?: AbortSignal): Promise<Chunk[]>;
}

/** A numbered source in an assembled LLM context. */
export interface ContextSource {
  /** 1-based number used for `[n]` citations. */
  number: number;
  chunk: Chunk;
  score: number;
  /** The page's sections after this opening, when the hit had them (page-outline.ts). */
  outline?: PageOutlineEntry[];
}

export interface AssembledContext {
  /** `[1] Title > Heading (url)` blocks joined, ready for the prompt. */
  text: string;
  sources: ContextSource[];
  tokens: number;
  /** Hits left out (least relevant first) to stay within the budget. */
  dropped: number;
}
