/**
 * Wiring from configuration to providers: the one place that chooses the
 * embedder and the vector store. Everything above (ingest, search, the
 * server) receives the chosen implementations.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CoreConfig } from './config.js';
import type { Embedder } from './embeddings/embedder.js';
import { createEmbedder } from './embeddings/create-embedder.js';
import { createEmbeddingPipeline } from './embeddings/embedding-pipeline.js';
import { createFileEmbeddingCache } from './embeddings/embedding-cache.js';
import { defaultNeuralThreads } from './embeddings/neural-embedder.js';
import type { VectorStore } from './stores/vector-store.js';
import { createEmbeddedStore } from './stores/embedded-store.js';
import { createQdrantStore } from './stores/qdrant-store.js';
import { ingestDocs, ingestSource, type IngestDependencies, type IngestOptions } from './ingest/run-ingest.js';
import type { GitRange, IngestReport } from './ingest/ingest-report.js';
import { changedFilesBetween, checkoutGitSource, redactGitUrl, type GitSourceSettings } from './ingest/git-source.js';
import { recordsScanner, type RecordsSourceSettings } from './ingest/records-source.js';
import { buildIndexMeta, checkIndexMeta } from './ingest/index-identity.js';
import { createRetriever } from './search/retriever.js';
import type { Retriever } from './search/search-types.js';
import type { ScopeCalibration } from './search/scope-check.js';
import { readScopeFit } from './search/scope-fit.js';
import { createThesaurus, parseSynonymsFile, type Thesaurus } from './text/synonyms.js';
import { DocsChatError } from './errors.js';
import { retrievalProfileFor } from './profile/retrieval-profile.js';
import { indexProfileHashes, readProfileHashes, staleProfileError, staleProfileParts } from './profile/index-profile.js';

export function createVectorStoreFromConfig(config: CoreConfig): VectorStore {
  if (config.store.backend === 'qdrant') {
    return createQdrantStore({
      url: config.store.url as string,
      ...(config.store.apiKey ? { apiKey: config.store.apiKey } : {}),
      collection: config.store.collection,
    });
  }
  return createEmbeddedStore({ dataDir: config.dataDir, collection: config.store.collection });
}

/**
 * Nice value of a searching server's inference threads on Linux. On a saturated two-core host, questions
 * embedded at the event loop's own priority took the CPU from streams and /health: see
 * docs-site/docs/quality/benchmarks.md, "Inference threads at a lower priority" (issue 16: /health p95 and
 * event-loop delay within 20 ms whatever the load).
 */
export const SEARCH_THREAD_NICENESS = 10;

/**
 * The configured embedder. A neural embedder for searching gets one worker
 * thread unless EMBEDDING_THREADS says otherwise (a question is one short
 * inference, and each thread holds its own copy of the model), at a lower
 * priority than the event loop; an ingest gets one per core, at full priority.
 */
export function createEmbedderFromConfig(config: CoreConfig, purpose: 'ingest' | 'search' = 'ingest'): Embedder {
  const threads = config.embedder.threads ?? (purpose === 'search' ? 1 : undefined);
  const threadNiceness = config.embedder.threadNiceness ?? (purpose === 'search' ? SEARCH_THREAD_NICENESS : 0);
  return createEmbedder({ ...config.embedder, ...(threads ? { threads } : {}), threadNiceness });
}

export type RunIngestOptions = Omit<IngestOptions, 'docsDir' | 'routeBasePath' | 'permalinksFile'> & {
  docsDir?: string;
  /** Where document embeddings are cached (default EMBEDDING_CACHE_DIR, else `${DATA_DIR}/embedding-cache`); evaluations share one across throwaway indexes. */
  embeddingCacheDir?: string;
};

/** Runs an incremental ingest with the configured providers. */
export async function runIngest(config: CoreConfig, options: RunIngestOptions = {}): Promise<IngestReport> {
  return withIngestDependencies(config, options, (deps) =>
    ingestDocs(deps, {
      ...options,
      docsDir: options.docsDir ?? config.docsDir,
      routeBasePath: config.routeBasePath,
      ...(config.permalinksFile ? { permalinksFile: config.permalinksFile } : {}),
    }),
  );
}

export type RunGitIngestOptions = Omit<RunIngestOptions, 'docsDir'> & {
  /** Repository, ref and folder; GIT_URL / GIT_REF / GIT_PATH when unset. */
  git?: GitSourceSettings;
};

/**
 * Syncs the git clone under DATA_DIR and ingests its docs folder, reading only
 * the files changed since the last ingested commit (recorded in the index).
 * Any failure before the index commit leaves the last good index serving.
 */
export async function runGitIngest(config: CoreConfig, options: RunGitIngestOptions = {}): Promise<IngestReport> {
  const settings = options.git ?? config.git;
  if (!settings?.url) {
    throw new DocsChatError('config_invalid', 'No git repository is configured.', {
      hint: 'Set GIT_URL to the repository holding your docs (or pass --git URL_OR_PATH), and GIT_PATH to its docs folder.',
    });
  }
  options.onProgress?.({ phase: 'fetch', done: 0, total: 1 });
  const checkout = await checkoutGitSource(config.dataDir, settings, options.signal);
  try {
    const range: GitRange = {
      url: redactGitUrl(checkout.url),
      ref: checkout.ref,
      path: checkout.path,
      from: null,
      to: checkout.commit,
      mode: 'full',
      reason: 'no commit recorded in this index yet: first sync, rebuild or changed settings',
    };
    const report = await withIngestDependencies(config, options, (deps) =>
      ingestDocs(deps, {
        ...options,
        docsDir: checkout.docsDir,
        routeBasePath: config.routeBasePath,
        ...(config.permalinksFile ? { permalinksFile: config.permalinksFile } : {}),
        source: 'git',
        delta: {
          key: 'gitSync',
          state: { url: checkout.url, path: checkout.path, commit: checkout.commit },
          changedSince: async (previous) => {
            const from = typeof previous['commit'] === 'string' ? previous['commit'] : null;
            range.from = from;
            if (from === null || previous['url'] !== checkout.url || previous['path'] !== checkout.path) {
              range.reason = 'the repository or its docs path changed since the last sync';
              return null;
            }
            const changed = await changedFilesBetween(checkout, from, options.signal);
            if (changed.files === null) {
              range.reason = changed.reason;
              return null;
            }
            range.mode = from === checkout.commit ? 'unchanged' : 'delta';
            delete range.reason;
            range.changedFiles = changed.files.length;
            return changed.files;
          },
        },
      }),
    );
    report.git = range;
    return report;
  } finally {
    await checkout.release();
  }
}

export type RunRecordsIngestOptions = Omit<RunIngestOptions, 'docsDir'> & RecordsSourceSettings;

/** Ingests JSON records (an array or JSON Lines) as documents, beside any docs in the same index. */
export async function runRecordsIngest(config: CoreConfig, options: RunRecordsIngestOptions): Promise<IngestReport> {
  const scanner = await recordsScanner(options, retrievalProfileFor(config.embedder.provider, config.profileOverrides));
  return withIngestDependencies(config, options, (deps) => ingestSource(deps, options, scanner));
}

async function withIngestDependencies<T>(
  config: CoreConfig,
  options: { embeddingCacheDir?: string },
  run: (deps: IngestDependencies) => Promise<T>,
): Promise<T> {
  const embedder = createEmbedderFromConfig(config);
  const store = createVectorStoreFromConfig(config);
  const embedding = createEmbeddingPipeline({
    embedder,
    cache: createFileEmbeddingCache({
      directory: options.embeddingCacheDir ?? config.embeddingCacheDir ?? path.join(config.dataDir, 'embedding-cache'),
      embedder,
    }),
    // Keep every worker thread of a local model busy, and a remote provider at its usual two batches.
    concurrency: Math.max(2, config.embedder.threads ?? (embedder.provider === 'neural' ? defaultNeuralThreads() : 2)),
  });
  try {
    return await run({
      store,
      embedder,
      embedding,
      dataDir: config.dataDir,
      profile: retrievalProfileFor(embedder.provider, config.profileOverrides),
      thesaurus: await loadThesaurus(config),
    });
  } finally {
    await Promise.all([store.close(), embedder.close?.()]);
  }
}

/** The built-in synonym groups plus the admin's (`SEARCH_SYNONYMS_FILE`), read afresh each time the index is opened. */
export async function loadThesaurus(config: Pick<CoreConfig, 'synonymsFile'>): Promise<Thesaurus> {
  if (!config.synonymsFile) return createThesaurus();
  let text: string;
  try {
    text = await readFile(config.synonymsFile, 'utf8');
  } catch (error) {
    throw new DocsChatError(
      'config_invalid',
      `SEARCH_SYNONYMS_FILE=${config.synonymsFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      {
        hint: 'Point SEARCH_SYNONYMS_FILE at a readable text file of comma-separated synonym groups, or unset it.',
        cause: error,
      },
    );
  }
  return createThesaurus(parseSynonymsFile(text, `SEARCH_SYNONYMS_FILE=${config.synonymsFile}`));
}

export interface OpenedRetrieval {
  retriever: Retriever;
  store: VectorStore;
  embedder: Embedder;
  close: () => Promise<void>;
}

/**
 * Opens the configured index for searching. Fails with `index_missing` when
 * nothing was ingested yet and `index_mismatch` when the index was built with
 * another embedder.
 */
export async function openRetrieval(config: CoreConfig, options: { requireIndex?: boolean } = {}): Promise<OpenedRetrieval> {
  // Read first: a bad synonyms file stops here, before anything is opened.
  const thesaurus = await loadThesaurus(config);
  const embedder = createEmbedderFromConfig(config, 'search');
  const store = createVectorStoreFromConfig(config);
  const meta = await store.readMeta();
  const profile = retrievalProfileFor(embedder.provider, config.profileOverrides);
  if (meta) {
    const where = `in ${store.backend} (${store.collection})`;
    try {
      checkIndexMeta(meta, buildIndexMeta(embedder), where);
      const stale = staleProfileParts(readProfileHashes(meta.extra), indexProfileHashes(profile));
      if (stale.length === 0 && readScopeFit(meta.extra) === null) stale.push('its out-of-scope thresholds were never fitted');
      if (stale.length > 0) throw staleProfileError(where, stale);
    } catch (error) {
      await Promise.all([store.close(), embedder.close?.()]);
      throw error;
    }
  } else if (options.requireIndex ?? true) {
    await store.close();
    throw new DocsChatError('index_missing', `No index found in ${store.backend} (${store.collection}).`, {
      hint: 'Run `pnpm docs-chat ingest` first.',
    });
  }
  const embedding = createEmbeddingPipeline({ embedder });
  if (embedder.provider === 'neural' && meta) {
    // Load the model now: a damaged model stops start-up with its fix, and the first reader does not wait for it.
    try {
      await embedding.embedQuery('docs-chat start-up check');
    } catch (error) {
      await Promise.all([store.close(), embedder.close?.()]);
      throw error;
    }
  }
  // SCOPE_MIN_* override the thresholds fitted on this index at ingest (an admin's own golden set may say better).
  const fit = readScopeFit(meta?.extra);
  const calibration: ScopeCalibration = {
    minVocabulary: config.scope.minVocabulary ?? fit?.minVocabulary ?? 0,
    minEvidence: config.scope.minEvidence ?? fit?.minEvidence ?? 0,
    minDense: config.scope.minDense ?? fit?.minDense ?? 0,
  };
  const retriever = createRetriever({ store, embedding, calibration, thesaurus, profile });
  return {
    retriever,
    store,
    embedder,
    close: async () => {
      await Promise.all([store.close(), embedder.close?.()]);
    },
  };
}
