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
import type { VectorStore } from './stores/vector-store.js';
import { createEmbeddedStore } from './stores/embedded-store.js';
import { createQdrantStore } from './stores/qdrant-store.js';
import { ingestDocs, type IngestOptions } from './ingest/run-ingest.js';
import type { IngestReport } from './ingest/ingest-report.js';
import { buildIndexMeta, checkIndexMeta } from './ingest/index-identity.js';
import { createRetriever } from './search/retriever.js';
import type { Retriever } from './search/search-types.js';
import { calibrationFor } from './search/scope-check.js';
import { createThesaurus, parseSynonymsFile, type Thesaurus } from './text/synonyms.js';
import { DocsChatError } from './errors.js';

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

export function createEmbedderFromConfig(config: CoreConfig): Embedder {
  return createEmbedder(config.embedder);
}

export type RunIngestOptions = Omit<IngestOptions, 'docsDir' | 'routeBasePath' | 'permalinksFile'> & {
  docsDir?: string;
};

/** Runs an incremental ingest with the configured providers. */
export async function runIngest(config: CoreConfig, options: RunIngestOptions = {}): Promise<IngestReport> {
  const embedder = createEmbedderFromConfig(config);
  const store = createVectorStoreFromConfig(config);
  const embedding = createEmbeddingPipeline({
    embedder,
    cache: createFileEmbeddingCache({ directory: path.join(config.dataDir, 'embedding-cache'), embedder }),
  });
  try {
    return await ingestDocs(
      { store, embedder, embedding, dataDir: config.dataDir },
      {
        ...options,
        docsDir: options.docsDir ?? config.docsDir,
        routeBasePath: config.routeBasePath,
        ...(config.permalinksFile ? { permalinksFile: config.permalinksFile } : {}),
      },
    );
  } finally {
    await store.close();
  }
}

/** The built-in synonym groups plus the admin's (`SEARCH_SYNONYMS_FILE`), read afresh each time the index is opened. */
export async function loadThesaurus(config: Pick<CoreConfig, 'synonymsFile'>): Promise<Thesaurus> {
  if (!config.synonymsFile) return createThesaurus();
  let text: string;
  try {
    text = await readFile(config.synonymsFile, 'utf8');
  } catch (error) {
    throw new DocsChatError('config_invalid', `SEARCH_SYNONYMS_FILE=${config.synonymsFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, {
      hint: 'Point SEARCH_SYNONYMS_FILE at a readable text file of comma-separated synonym groups, or unset it.',
      cause: error,
    });
  }
  return createThesaurus(parseSynonymsFile(text, `SEARCH_SYNONYMS_FILE=${config.synonymsFile}`));
}

export interface OpenedRetrieval {
  retriever: Retriever;
  store: VectorStore;
  embedder: Embedder;
  close(): Promise<void>;
}

/**
 * Opens the configured index for searching. Fails with `index_missing` when
 * nothing was ingested yet and `index_mismatch` when the index was built with
 * another embedder.
 */
export async function openRetrieval(config: CoreConfig, options: { requireIndex?: boolean } = {}): Promise<OpenedRetrieval> {
  // Read first: a bad synonyms file stops here, before anything is opened.
  const thesaurus = await loadThesaurus(config);
  const embedder = createEmbedderFromConfig(config);
  const store = createVectorStoreFromConfig(config);
  const meta = await store.readMeta();
  if (meta) {
    checkIndexMeta(meta, buildIndexMeta(embedder), `in ${store.backend} (${store.collection})`);
  } else if (options.requireIndex ?? true) {
    await store.close();
    throw new DocsChatError('index_missing', `No index found in ${store.backend} (${store.collection}).`, {
      hint: 'Run `pnpm docs-chat ingest` first.',
    });
  }
  const embedding = createEmbeddingPipeline({ embedder });
  // SCOPE_MIN_* override the thresholds calibrated for the embedder (fitted on an admin's own golden set).
  const calibration = { ...calibrationFor(embedder), ...config.scope };
  const retriever = createRetriever({ store, embedding, calibration, thesaurus });
  return { retriever, store, embedder, close: () => store.close() };
}
