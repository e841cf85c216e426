// Public API of @docs-chat/core. Each area appends its own exports below.
export * from './errors.js';
export * from './config.js';
export type * from './markdown/document.js';
export type * from './embeddings/embedder.js';
export type * from './stores/vector-store.js';
export type * from './search/search-types.js';
export { ANALYZER_VERSION, analyzeText, analyzeTerms, hashTerm } from './text/text-analysis.js';
export { SPARSE_ENCODER_VERSION, encodeDocumentSparse, encodeQuerySparse } from './text/sparse-encoder.js';
export { createLocalEmbedder, LOCAL_EMBEDDER_MODEL } from './embeddings/local-embedder.js';
export { acquireIngestLock, type IngestLock } from './ingest/ingest-lock.js';
export { listDocsFiles, loadPermalinks } from './ingest/docs-files.js';
export { formatIngestReport, type IngestReport, type IngestProgress } from './ingest/ingest-report.js';
export { ingestDocs, type IngestDependencies, type IngestOptions, type DocumentEmbedding } from './ingest/run-ingest.js';
export { buildIndexMeta, checkIndexMeta } from './ingest/index-identity.js';
export { createRetriever, validateQuery, MAX_QUERY_CHARS, type QueryEmbedding, type RetrieverOptions } from './search/retriever.js';
export { judgeScope, type ScopeCalibration, type ScopeVerdict } from './search/scope-check.js';
export { fitScopeThresholds, readScopeFit, pseudoQuestions, type ScopeFit } from './search/scope-fit.js';
export { OFF_TOPIC_QUESTIONS } from './search/off-topic-questions.js';
export { splitQuestion, condenseQuestion, type QuestionParts } from './search/question-parts.js';
export { assembleContext, DEFAULT_CONTEXT_TOKEN_BUDGET } from './search/context-assembly.js';
export { withPageOutline, pageOutline, isPageOpening, MAX_OUTLINE_ENTRIES } from './search/page-outline.js';
export {
  withRetries,
  isRetryableError,
  isRetryableStatus,
  isNetworkError,
  statusOf,
  retryAfterMsOf,
  parseGoogleRetryDelay,
  parseRetryAfterHeader,
  sleep,
  type RetryOptions,
  type RetryAttemptInfo,
} from './retry.js';
export { createEmbedder, type EmbedderSettings } from './embeddings/create-embedder.js';
export {
  createGeminiEmbedder,
  DEFAULT_GEMINI_EMBEDDING_MODEL,
  DEFAULT_GEMINI_EMBEDDING_DIMENSIONS,
  GEMINI_MAX_BATCH,
  type GeminiEmbedderOptions,
} from './embeddings/gemini-embedder.js';
export { createOpenAIEmbedder, DEFAULT_OPENAI_EMBEDDING_MODEL, type OpenAIEmbedderOptions } from './embeddings/openai-embedder.js';
export {
  createEmbeddingPipeline,
  documentCacheKey,
  type EmbeddingPipeline,
  type EmbeddingPipelineOptions,
  type EmbeddingStats,
  type DocumentToEmbed,
  type EmbedDocumentsOptions,
  type RetryPolicy,
} from './embeddings/embedding-pipeline.js';
export {
  createFileEmbeddingCache,
  createMemoryEmbeddingCache,
  cacheFileName,
  type EmbeddingCache,
  type FileEmbeddingCacheOptions,
} from './embeddings/embedding-cache.js';
export { toEmbedderError, isGeminiInvalidKey, type EmbedderErrorContext } from './embeddings/embedder-errors.js';
export { toUnitVector } from './embeddings/unit-vector.js';
export { createEmbeddedStore, type EmbeddedStoreOptions } from './stores/embedded-store.js';
export { createQdrantStore, META_POINT_ID, type QdrantStoreOptions } from './stores/qdrant-store.js';
export { RRF_K, inverseDocumentFrequency, fuseReciprocalRanks, type RankedId } from './stores/ranking.js';
export { normaliseFilePrefix, folderPrefixes } from './stores/search-filter.js';
export { runGitIngest, runRecordsIngest, type RunGitIngestOptions, type RunRecordsIngestOptions } from './runtime.js';
export { normalizeGitUrl, redactGitUrl, type GitSourceSettings } from './ingest/git-source.js';
export { parseRecordMapping, MAX_RECORD_BYTES, type RecordsSourceSettings } from './ingest/records-source.js';
export type { GitRange } from './ingest/ingest-report.js';
export {
  runIngest,
  openRetrieval,
  loadThesaurus,
  createVectorStoreFromConfig,
  createEmbedderFromConfig,
  SEARCH_THREAD_NICENESS,
  type OpenedRetrieval,
  type RunIngestOptions,
} from './runtime.js';
export { createThesaurus, parseSynonymsFile, BUILT_IN_SYNONYMS, type Thesaurus } from './text/synonyms.js';
export { boundSelection, countTokens, type BoundedSelection } from './protocol/token-budget.js';
export { decodeSourceFile, type DecodedSource } from './markdown/decode-source.js';
export { computeDocRoute, type DocRoute, type DocRouteInput } from './markdown/docusaurus-routes.js';
export { parseDocument } from './markdown/parse-document.js';
export { chunkDocument } from './markdown/chunk-document.js';
export { DEFAULT_MAX_TOKENS, DEFAULT_OVERLAP_RATIO, type ChunkOptions } from './markdown/chunk-document.js';
export { type ParseDocumentInput } from './markdown/parse-document.js';
export { DEFAULT_ROUTE_BASE_PATH } from './markdown/docusaurus-routes.js';
export { createHeadingSlugger, parseCustomHeadingId, type HeadingSlugger } from './markdown/heading-anchors.js';
export { uuidV5, CHUNK_ID_NAMESPACE } from './markdown/stable-id.js';
export { acquirePidLock, processIsAlive, type PidLock, type LockOwner } from './locks/pid-lock-file.js';
export { readChunkBlocks, tableCells, type ChunkBlock, type BlockLabel } from './markdown/chunk-blocks.js';
export {
  retrievalProfileFor,
  profileSourcesFor,
  profileHashes,
  validateProfileOverrides,
  PROFILE_VERSION,
  PROFILE_RANGES,
  type RetrievalProfile,
  type RankingProfile,
  type ProfileOverrides,
  type ProfileHashes,
} from './profile/retrieval-profile.js';
export {
  createNeuralEmbedder,
  NEURAL_EMBEDDER_MODEL,
  NEURAL_MODEL_PACKAGE,
  NEURAL_REINSTALL_HINT,
  type NeuralEmbedderOptions,
} from './embeddings/neural-embedder.js';
export { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from './workers/worker-pool.js';
export {
  readSiteLayout,
  readSiteSummary,
  summariseSite,
  scopeOfFileKey,
  siteKeyPrefix,
  DEFAULT_DOCS_INSTANCE,
  BLOG_INSTANCE,
  CURRENT_VERSION,
  type SiteOptions,
  type SiteInstanceOptions,
  type SiteLayout,
  type SiteSummary,
  type SiteVersionInfo,
  type ContentSet,
} from './ingest/site-layout.js';
export { resolveSiteScope, versionNamedIn } from './search/site-scope.js';
export { computeBlogRoute, type BlogRouteInput } from './markdown/docusaurus-routes.js';
