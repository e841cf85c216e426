/**
 * The slice of the retrieval core the server depends on, in one place.
 *
 * The server receives these functions and objects through `buildApp(config, deps)`
 * instead of importing them everywhere, so that the chat orchestration and the
 * routes can be exercised with the real core opened on any index, and so only
 * the start-up code decides which backends are opened.
 */
export type {
  AssembledContext,
  Chunk,
  ContextSource,
  CoreConfig,
  Embedder,
  OpenedRetrieval,
  AppliedScope,
  RequestedScope,
  Retriever,
  SearchExplanation,
  SearchHit,
  SearchResponse,
  StoreStatus,
  VectorStore,
} from '@docs-chat/core';

import type { AssembledContext, SearchHit } from '@docs-chat/core';

/** Numbers the hits as `[n]` sources within a token budget. */
export type AssembleContext = (hits: SearchHit[], options?: { tokenBudget?: number }) => AssembledContext;

/** Counts tokens the way the core budgets them. */
export type CountTokens = (text: string) => number;

/** Options of an ingest started from the admin route. */
export interface IngestRequestOptions {
  rebuild?: boolean;
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** Runs the incremental ingest with the server's configuration and returns the core's report. */
export type RunIngest = (options: IngestRequestOptions) => Promise<unknown>;

export {
  acquireIngestLock,
  assembleContext,
  boundSelection,
  countTokens,
  DocsChatError,
  isDocsChatError,
  loadCoreConfig,
  openRetrieval,
  readSiteLayout,
  runGitIngest,
  runIngest,
  withPageOutline,
} from '@docs-chat/core';
