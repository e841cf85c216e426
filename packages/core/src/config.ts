/**
 * Retrieval configuration from the environment. Every variable has a default
 * that works offline; a wrong value stops with a message that names the
 * variable and the fix.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DocsChatError } from './errors.js';
import { normalizeGitUrl } from './ingest/git-source.js';
import { ProfileOverrideError, validateProfileOverrides, type ProfileOverrides } from './profile/retrieval-profile.js';

export type EmbeddingProvider = 'neural' | 'local' | 'gemini' | 'openai';
export type VectorStoreBackend = 'embedded' | 'qdrant';

export interface EmbedderConfig {
  provider: EmbeddingProvider;
  /** Model name; the provider's default when unset. */
  model?: string;
  dimensions?: number;
  apiKey?: string;
  baseUrl?: string;
  /** Neural: worker threads for inference (default: the cores available, at most 4, for an ingest; 1 for searching). */
  threads?: number;
  /** Neural: embedding tasks that may wait for a thread before callers get `service_busy` (default 64). */
  queueLimit?: number;
  /** Neural, Linux: nice value of the inference threads (EMBEDDING_THREAD_NICENESS; default 10 when searching, 0 for an ingest). */
  threadNiceness?: number;
}

export interface StoreConfig {
  backend: VectorStoreBackend;
  collection: string;
  url?: string;
  apiKey?: string;
}

export interface CoreConfig {
  /** Where the embedded store, the embedding cache and locks live. */
  dataDir: string;
  /**
   * Where document vectors are cached (EMBEDDING_CACHE_DIR), when not `${dataDir}/embedding-cache`: a
   * deployment whose DATA_DIR is thrown away with each container keeps the cache on a volume of its own.
   */
  embeddingCacheDir?: string;
  /** Default docs folder for `ingest`. */
  docsDir: string;
  /**
   * A whole Docusaurus site to ingest (DOCS_SITE_DIR), with its options file (DOCS_SITE_CONFIG, the JSON of
   * `ingest --site-config`). When set, `ingest` without a source flag and `POST /admin/ingest` read the site.
   */
  site?: { dir: string; configFile?: string };
  /** Docusaurus docs `routeBasePath`, used to compute page URLs. */
  routeBasePath: string;
  /** JSON file of exact permalinks written by the Docusaurus plugin; auto-detected when unset. */
  permalinksFile?: string;
  /** The admin's synonym groups (one comma-separated group per line), added to the built-in thesaurus. */
  synonymsFile?: string;
  /** Thresholds of the out-of-scope check that override the embedder's calibrated ones. */
  scope: { minVocabulary?: number; minEvidence?: number; minDense?: number };
  /** The admin's overrides of search-time profile values (RETRIEVAL_PROFILE), validated. */
  profileOverrides: ProfileOverrides;
  embedder: EmbedderConfig;
  store: StoreConfig;
  /** The git source (GIT_URL, GIT_REF, GIT_PATH) synced by `ingest --git` and `POST /admin/sync`. */
  git?: { url: string; ref?: string; path?: string };
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new DocsChatError('config_invalid', `${name}="${value}" is not valid.`, {
    hint: `Set ${name} to one of: ${allowed.join(', ')} (or leave it unset for "${fallback}").`,
  });
}

function positiveInteger(env: Env, name: string): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) {
    throw new DocsChatError('config_invalid', `${name}="${value}" is not a positive whole number.`, {
      hint: `Set ${name} to a number such as 768, or leave it unset for the default.`,
    });
  }
  return parsed;
}

function wholeNumberBetween(env: Env, name: string, [min, max]: [number, number], hint: string): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new DocsChatError('config_invalid', `${name}="${value}" is not a whole number from ${min} to ${max}.`, { hint });
  }
  return parsed;
}

function numberBetween(env: Env, name: string, min: number, max: number, example: string): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
    throw new DocsChatError('config_invalid', `${name}="${value}" is not a number from ${min} to ${max}.`, {
      hint: `Set ${name} to a number such as ${example}, or leave it unset for the value fitted on the index at ingest.`,
    });
  }
  return parsed;
}

function url(env: Env, name: string): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new DocsChatError('config_invalid', `${name}="${value}" is not an http(s) URL.`, {
      hint: `Set ${name} to a full URL such as http://localhost:6333.`,
    });
  }
  return value;
}

/** `RETRIEVAL_PROFILE`: a JSON file of `{"ranking.denseWeight": 0.5, ...}`; every value is checked against its range. */
function profileOverrides(env: Env, cwd: string): ProfileOverrides {
  const file = text(env, 'RETRIEVAL_PROFILE');
  if (file === undefined) return {};
  const where = `RETRIEVAL_PROFILE=${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.resolve(cwd, file), 'utf8'));
  } catch (error) {
    throw new DocsChatError('config_invalid', `${where} cannot be read as JSON (${(error as Error).message}).`, {
      hint: 'Point RETRIEVAL_PROFILE at a JSON object such as {"ranking.denseWeight": 0.5}, or unset it to use the fitted profile.',
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DocsChatError('config_invalid', `${where} must hold a JSON object of "section.name": number.`, {
      hint: 'For example {"ranking.denseWeight": 0.5}.',
    });
  }
  try {
    return validateProfileOverrides(raw as Record<string, unknown>, where);
  } catch (error) {
    if (error instanceof ProfileOverrideError) throw new DocsChatError('config_invalid', error.message, { hint: error.hint });
    throw error;
  }
}

/** Reads the retrieval settings from `env` (usually `process.env`). */
export function loadCoreConfig(env: Env = process.env, cwd: string = process.cwd()): CoreConfig {
  const geminiKey = text(env, 'GEMINI_API_KEY');
  const openaiKey = text(env, 'OPENAI_API_KEY');
  const provider = oneOf<EmbeddingProvider>(
    env,
    'EMBEDDING_PROVIDER',
    ['neural', 'local', 'gemini', 'openai'],
    geminiKey ? 'gemini' : 'neural',
  );
  if (provider === 'gemini' && !geminiKey) {
    throw new DocsChatError('config_invalid', 'EMBEDDING_PROVIDER=gemini needs GEMINI_API_KEY.', {
      hint: 'Set GEMINI_API_KEY in .env, or set EMBEDDING_PROVIDER=local for offline embeddings.',
    });
  }
  const openaiBase = url(env, 'OPENAI_BASE_URL');
  if (provider === 'openai' && !openaiBase && !openaiKey) {
    throw new DocsChatError('config_invalid', 'EMBEDDING_PROVIDER=openai needs OPENAI_BASE_URL or OPENAI_API_KEY.', {
      hint: 'Set OPENAI_BASE_URL to an OpenAI-compatible server (and OPENAI_API_KEY if it needs one).',
    });
  }
  const embedder: EmbedderConfig = { provider };
  const model = text(env, 'EMBEDDING_MODEL');
  if (model) embedder.model = model;
  const dimensions = positiveInteger(env, 'EMBEDDING_DIMENSIONS');
  if (dimensions && provider === 'neural' && dimensions !== 512) {
    throw new DocsChatError(
      'config_invalid',
      `EMBEDDING_DIMENSIONS=${dimensions} does not fit EMBEDDING_PROVIDER=neural, whose model gives 512 dimensions.`,
      {
        hint: 'Leave EMBEDDING_DIMENSIONS unset with the neural embedder.',
      },
    );
  }
  if (dimensions) embedder.dimensions = dimensions;
  const threads = positiveInteger(env, 'EMBEDDING_THREADS');
  if (threads) embedder.threads = threads;
  const queueLimit = wholeNumberBetween(
    env,
    'EMBEDDING_QUEUE_LIMIT',
    [0, 10_000],
    'Set EMBEDDING_QUEUE_LIMIT to the questions that may wait for the neural embedder (default 64), or leave it unset.',
  );
  if (queueLimit !== undefined) embedder.queueLimit = queueLimit;
  const niceness = wholeNumberBetween(
    env,
    'EMBEDDING_THREAD_NICENESS',
    [0, 19],
    "Set EMBEDDING_THREAD_NICENESS to 0 (inference at the server's own priority) up to 19 (inference yields the CPU the most), or leave it unset for 10.",
  );
  if (niceness !== undefined) embedder.threadNiceness = niceness;
  if (provider === 'gemini') {
    embedder.apiKey = geminiKey;
    const base = url(env, 'GEMINI_BASE_URL');
    if (base) embedder.baseUrl = base;
  } else if (provider === 'openai') {
    if (openaiKey) embedder.apiKey = openaiKey;
    if (openaiBase) embedder.baseUrl = openaiBase;
  }

  const backend = oneOf<VectorStoreBackend>(env, 'VECTOR_STORE', ['embedded', 'qdrant'], text(env, 'QDRANT_URL') ? 'qdrant' : 'embedded');
  const store: StoreConfig = { backend, collection: text(env, 'QDRANT_COLLECTION') ?? 'docusaurus-book' };
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(store.collection)) {
    throw new DocsChatError('config_invalid', `QDRANT_COLLECTION="${store.collection}" is not a valid collection name.`, {
      hint: 'Use letters, digits, "-", "_" or "." (for example docusaurus-book).',
    });
  }
  if (backend === 'qdrant') {
    const qdrantUrl = url(env, 'QDRANT_URL');
    if (!qdrantUrl) {
      throw new DocsChatError('config_invalid', 'VECTOR_STORE=qdrant needs QDRANT_URL.', {
        hint: 'Set QDRANT_URL (for example http://localhost:6333), or VECTOR_STORE=embedded.',
      });
    }
    store.url = qdrantUrl;
    const apiKey = text(env, 'QDRANT_API_KEY');
    if (apiKey) store.apiKey = apiKey;
  }

  let routeBasePath = text(env, 'DOCS_ROUTE_BASE_PATH') ?? '/docs';
  if (!routeBasePath.startsWith('/')) routeBasePath = `/${routeBasePath}`;

  const config: CoreConfig = {
    dataDir: path.resolve(cwd, text(env, 'DATA_DIR') ?? '.data'),
    docsDir: path.resolve(cwd, text(env, 'DOCS_DIR') ?? 'docs-site/docs'),
    routeBasePath,
    embedder,
    store,
    scope: {},
    profileOverrides: profileOverrides(env, cwd),
  };
  const embeddingCacheDir = text(env, 'EMBEDDING_CACHE_DIR');
  if (embeddingCacheDir !== undefined) config.embeddingCacheDir = path.resolve(cwd, embeddingCacheDir);
  const siteDir = text(env, 'DOCS_SITE_DIR');
  const siteConfigFile = text(env, 'DOCS_SITE_CONFIG');
  if (siteConfigFile !== undefined && siteDir === undefined) {
    throw new DocsChatError('config_invalid', 'DOCS_SITE_CONFIG is set but DOCS_SITE_DIR is not.', {
      hint: 'Set DOCS_SITE_DIR to the folder holding docusaurus.config.*, or remove DOCS_SITE_CONFIG.',
    });
  }
  if (siteDir !== undefined) {
    config.site = {
      dir: path.resolve(cwd, siteDir),
      ...(siteConfigFile !== undefined ? { configFile: path.resolve(cwd, siteConfigFile) } : {}),
    };
  }
  // Coverage and the dense cosine each run from 0 to 1, so their sum (the evidence) from 0 to 2.
  const minVocabulary = numberBetween(env, 'SCOPE_MIN_VOCABULARY', 0, 1, '0.4');
  if (minVocabulary !== undefined) config.scope.minVocabulary = minVocabulary;
  const minEvidence = numberBetween(env, 'SCOPE_MIN_EVIDENCE', 0, 2, '0.6');
  if (minEvidence !== undefined) config.scope.minEvidence = minEvidence;
  const minDense = numberBetween(env, 'SCOPE_MIN_DENSE', 0, 1, '0.3');
  if (minDense !== undefined) config.scope.minDense = minDense;
  const permalinks = text(env, 'DOCS_PERMALINKS_FILE');
  if (permalinks) config.permalinksFile = path.resolve(cwd, permalinks);
  const gitUrl = text(env, 'GIT_URL');
  if (gitUrl) {
    config.git = { url: normalizeGitUrl(gitUrl, cwd) };
    const gitRef = text(env, 'GIT_REF');
    if (gitRef) config.git.ref = gitRef;
    const gitPath = text(env, 'GIT_PATH');
    if (gitPath) config.git.path = gitPath;
  }
  const synonyms = text(env, 'SEARCH_SYNONYMS_FILE');
  if (synonyms) config.synonymsFile = path.resolve(cwd, synonyms);
  return config;
}
