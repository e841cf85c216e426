/**
 * The server's settings, read once from the environment and validated at
 * start-up: a wrong value stops the server with a message naming the variable
 * and the fix, instead of failing later on a reader's request.
 * Retrieval settings (DATA_DIR, VECTOR_STORE, EMBEDDING_*, ...) belong to the
 * core's `loadCoreConfig`; `.env.example` lists both.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import util from 'node:util';
import { DocsChatError, loadCoreConfig, type CoreConfig } from './core-api.js';
import type { ChatModelProvider } from './llm/chat-model.js';
import { type McpSettings, readMcpSettings } from './mcp/mcp-settings.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface LlmSettings {
  provider: ChatModelProvider;
  /** Empty means the provider's default model. */
  model: string;
  apiKey: string | undefined;
  baseUrl: string | undefined;
  timeoutMs: number;
}

export interface ServerSettings {
  port: number;
  host: string;
  /** postgres:// URL; conversations go to embedded PGlite under DATA_DIR when absent. */
  databaseUrl: string | undefined;
  llm: LlmSettings;
  /** Allowed browser origins; `['*']` allows any. */
  corsOrigins: string[];
  rateLimit: { max: number; windowMs: number };
  /** `POST /feedback` per reader IP, over the same window. */
  feedbackRateLimit: { max: number; windowMs: number };
  /** `GET /conversations/:id` per reader IP, over the same window. */
  conversationRateLimit: { max: number; windowMs: number };
  bodyLimitBytes: number;
  /** Time allowed to receive a whole request, headers and body (not the answer, which may stream for longer). */
  requestTimeoutMs: number;
  /** Time allowed to receive the request headers. */
  headersTimeoutMs: number;
  /** The admin routes exist only when this is set. */
  adminToken: string | undefined;
  /** Secret of `POST /webhooks/git` (GitHub signature / GitLab token); the route exists only when set with GIT_URL. */
  gitWebhookSecret: string | undefined;
  logLevel: LogLevel;
  shutdownGraceMs: number;
  heartbeatMs: number;
  /** Timeout of each dependency check in /health (the whole answer stays under 500 ms). */
  healthCheckTimeoutMs: number;
  /** How old a dependency check /health may serve (HEALTH_CACHE_MS); 0 checks on every poll. */
  healthCacheMs: number;
  /** Resident memory near which V8 collects garbage sooner (MEMORY_SOFT_LIMIT_MB; 0 = off); see memory-soft-limit.ts. */
  memorySoftLimitMb: number;
  /** Trust X-Forwarded-For from this many proxy hops (rate limits per reader IP behind a load balancer). */
  trustProxy: boolean | number;
  /** Recent search results kept in memory (0 = off) and for how long. */
  retrievalCache: { maxEntries: number; ttlMs: number };
  /** `POST /mcp`: its token and the docs site's address. */
  mcp: McpSettings;
  /** Conversations idle for longer are removed by a sweep; undefined keeps them until their reader deletes them. */
  conversationRetentionDays: number | undefined;
  /** When set, `GET /metrics` asks for "Authorization: Bearer <METRICS_TOKEN>". */
  metricsToken: string | undefined;
  /** How long `GET /admin/insights` keeps a period's report (INSIGHTS_CACHE_SECONDS); 0 builds one per request. */
  insightsCacheMs: number;
}

export const DEFAULT_SERVER_SETTINGS = {
  port: 8000,
  host: '127.0.0.1',
  corsOrigins: ['http://localhost:3000'],
  rateLimitMax: 20,
  rateLimitWindowMs: 60_000,
  feedbackRateLimitMax: 20,
  conversationRateLimitMax: 40,
  bodyLimitBytes: 512 * 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  logLevel: 'info' as LogLevel,
  shutdownGraceMs: 10_000,
  heartbeatMs: 15_000,
  healthCheckTimeoutMs: 300,
  healthCacheMs: 1000,
  memorySoftLimitMb: 300,
  llmTimeoutMs: 60_000,
  adminTokenMinLength: 16,
  retrievalCacheSize: 500,
  retrievalCacheTtlMs: 300_000,
  insightsCacheSeconds: 30,
} as const;

/** Below this a soft memory limit would keep V8 collecting from the start: a mistake (a value in GB, or too small). */
const MIN_MEMORY_SOFT_LIMIT_MB = 128;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const PROVIDERS: readonly ChatModelProvider[] = ['gemini', 'openai', 'extractive'];

/**
 * Loads `.env` from the working directory into `target` (normally `process.env`)
 * when the file exists. Variables already set win, as with every dotenv loader,
 * so the real environment can always override the file.
 */
export function loadDotEnvFile(file = resolve(process.cwd(), '.env'), target: NodeJS.ProcessEnv = process.env): boolean {
  if (!existsSync(file)) return false;
  // util.parseEnv exists from Node 20.12; older 20.x simply skip the file.
  const parse = (util as { parseEnv?: (content: string) => Record<string, string> }).parseEnv;
  if (typeof parse !== 'function') return false;
  for (const [name, value] of Object.entries(parse(readFileSync(file, 'utf8')))) {
    if (target[name] === undefined) target[name] = value;
  }
  return true;
}

/** Reads and validates the server's variables; throws one `config_invalid` error listing every problem. */
export function loadServerSettings(env: NodeJS.ProcessEnv): ServerSettings {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const integer = (name: string, fallback: number, min: number, max: number, unit: string): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name}="${raw}" is not valid: set it to a whole number of ${unit} between ${min} and ${max} (default ${fallback}).`);
      return fallback;
    }
    return value;
  };

  const port = integer('PORT', DEFAULT_SERVER_SETTINGS.port, 0, 65535, 'a TCP port');
  const host = read('HOST') ?? DEFAULT_SERVER_SETTINGS.host;

  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./.test(databaseUrl)) {
    problems.push(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (e.g. postgres://user:password@localhost:5432/docs_chat); leave it unset to keep conversations in embedded PGlite under DATA_DIR.',
    );
  }

  const geminiKey = read('GEMINI_API_KEY');
  const openaiKey = read('OPENAI_API_KEY');
  const rawProvider = read('LLM_PROVIDER')?.toLowerCase();
  let provider: ChatModelProvider = geminiKey ? 'gemini' : 'extractive';
  if (rawProvider !== undefined) {
    if ((PROVIDERS as readonly string[]).includes(rawProvider)) provider = rawProvider as ChatModelProvider;
    else
      problems.push(
        `LLM_PROVIDER="${rawProvider}" is not known: use one of ${PROVIDERS.join(', ')} (default gemini when GEMINI_API_KEY is set, else extractive).`,
      );
  }
  const baseUrl =
    read('LLM_BASE_URL') ?? (provider === 'gemini' ? read('GEMINI_BASE_URL') : provider === 'openai' ? read('OPENAI_BASE_URL') : undefined);
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
    problems.push(`LLM_BASE_URL="${baseUrl}" is not an http(s) URL: set it to the API root, e.g. http://localhost:11434/v1 for Ollama.`);
  }
  let apiKey: string | undefined;
  if (provider === 'gemini') {
    apiKey = geminiKey;
    if (!apiKey)
      problems.push('LLM_PROVIDER=gemini needs GEMINI_API_KEY: set it to a key from Google AI Studio, or choose LLM_PROVIDER=extractive.');
  } else if (provider === 'openai') {
    apiKey = openaiKey;
    if (!apiKey && baseUrl === undefined) {
      problems.push(
        'LLM_PROVIDER=openai needs OPENAI_API_KEY, or LLM_BASE_URL pointing at a compatible server that needs no key (Ollama, vLLM).',
      );
    }
  }
  const llm: LlmSettings = {
    provider,
    model: read('LLM_MODEL') ?? '',
    apiKey,
    baseUrl,
    timeoutMs: integer('LLM_TIMEOUT_MS', DEFAULT_SERVER_SETTINGS.llmTimeoutMs, 1000, 600_000, 'milliseconds'),
  };

  const corsOrigins = (read('CORS_ORIGINS') ?? DEFAULT_SERVER_SETTINGS.corsOrigins.join(','))
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin.length > 0);
  for (const origin of corsOrigins) {
    if (origin !== '*' && !isOrigin(origin)) {
      problems.push(
        `CORS_ORIGINS holds "${origin}", which is not an origin: list comma-separated origins like https://docs.example.com,http://localhost:3000 (scheme, host and port only, no path).`,
      );
    }
  }

  const rateLimit = {
    max: integer('RATE_LIMIT_MAX', DEFAULT_SERVER_SETTINGS.rateLimitMax, 1, 1_000_000, 'chat requests per window and reader IP'),
    windowMs: integer('RATE_LIMIT_WINDOW_MS', DEFAULT_SERVER_SETTINGS.rateLimitWindowMs, 1000, 86_400_000, 'milliseconds'),
  };
  const feedbackRateLimit = {
    max: integer('FEEDBACK_RATE_LIMIT_MAX', DEFAULT_SERVER_SETTINGS.feedbackRateLimitMax, 1, 1_000_000, 'ratings per window and reader IP'),
    windowMs: rateLimit.windowMs,
  };
  const conversationRateLimit = {
    max: integer(
      'CONVERSATION_RATE_LIMIT_MAX',
      DEFAULT_SERVER_SETTINGS.conversationRateLimitMax,
      1,
      1_000_000,
      'conversation reads per window and reader IP',
    ),
    windowMs: rateLimit.windowMs,
  };
  const bodyLimitBytes = integer('BODY_LIMIT_BYTES', DEFAULT_SERVER_SETTINGS.bodyLimitBytes, 1024, 50 * 1024 * 1024, 'bytes');
  const requestTimeoutMs = integer('REQUEST_TIMEOUT_MS', DEFAULT_SERVER_SETTINGS.requestTimeoutMs, 100, 600_000, 'milliseconds');
  const headersTimeoutMs = integer('HEADERS_TIMEOUT_MS', DEFAULT_SERVER_SETTINGS.headersTimeoutMs, 100, 600_000, 'milliseconds');
  // Node refuses a headers timeout longer than the whole-request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) is longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request, so set it to at most REQUEST_TIMEOUT_MS.`,
    );
  }

  const adminToken = read('ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < DEFAULT_SERVER_SETTINGS.adminTokenMinLength) {
    problems.push(
      `ADMIN_TOKEN is too short to be safe: use at least ${DEFAULT_SERVER_SETTINGS.adminTokenMinLength} random characters (e.g. the output of "openssl rand -hex 32"), or unset it to disable /admin routes.`,
    );
  }

  const gitWebhookSecret = read('GIT_WEBHOOK_SECRET');
  if (gitWebhookSecret !== undefined && gitWebhookSecret.length < DEFAULT_SERVER_SETTINGS.adminTokenMinLength) {
    problems.push(
      `GIT_WEBHOOK_SECRET is too short to be safe: use at least ${DEFAULT_SERVER_SETTINGS.adminTokenMinLength} random characters (e.g. the output of "openssl rand -hex 32"), or unset it to disable /webhooks/git.`,
    );
  }

  const rawLevel = read('LOG_LEVEL')?.toLowerCase();
  let logLevel = DEFAULT_SERVER_SETTINGS.logLevel;
  if (rawLevel !== undefined) {
    if ((LOG_LEVELS as readonly string[]).includes(rawLevel)) logLevel = rawLevel as LogLevel;
    else problems.push(`LOG_LEVEL="${rawLevel}" is not a level: use one of ${LOG_LEVELS.join(', ')} (default info).`);
  }

  const shutdownGraceMs = integer('SHUTDOWN_GRACE_MS', DEFAULT_SERVER_SETTINGS.shutdownGraceMs, 0, 600_000, 'milliseconds');
  const heartbeatMs = integer('HEARTBEAT_MS', DEFAULT_SERVER_SETTINGS.heartbeatMs, 100, 300_000, 'milliseconds');
  const healthCheckTimeoutMs = integer('HEALTH_CHECK_TIMEOUT_MS', DEFAULT_SERVER_SETTINGS.healthCheckTimeoutMs, 10, 450, 'milliseconds');
  const healthCacheMs = integer('HEALTH_CACHE_MS', DEFAULT_SERVER_SETTINGS.healthCacheMs, 0, 60_000, 'milliseconds');
  const memorySoftLimitMb = integer('MEMORY_SOFT_LIMIT_MB', DEFAULT_SERVER_SETTINGS.memorySoftLimitMb, 0, 1_048_576, 'MB');
  if (memorySoftLimitMb > 0 && memorySoftLimitMb < MIN_MEMORY_SOFT_LIMIT_MB) {
    problems.push(
      `MEMORY_SOFT_LIMIT_MB=${memorySoftLimitMb} is below what a server process needs at start (about 200 MB with the neural embedder, 150 MB without): set it to at least ${MIN_MEMORY_SOFT_LIMIT_MB}, or to 0 to let V8 size its heap on its own.`,
    );
  }

  const rawTrust = read('TRUST_PROXY')?.toLowerCase();
  let trustProxy: boolean | number = false;
  if (rawTrust !== undefined) {
    if (rawTrust === 'true') trustProxy = true;
    else if (rawTrust === 'false') trustProxy = false;
    else if (/^\d+$/.test(rawTrust)) trustProxy = Number(rawTrust);
    else
      problems.push(`TRUST_PROXY="${rawTrust}" is not valid: use false (default), true, or the number of proxies in front of the server.`);
  }

  const retrievalCache = {
    maxEntries: integer(
      'RETRIEVAL_CACHE_SIZE',
      DEFAULT_SERVER_SETTINGS.retrievalCacheSize,
      0,
      1_000_000,
      'cached searches (0 turns the cache off)',
    ),
    ttlMs: integer('RETRIEVAL_CACHE_TTL_MS', DEFAULT_SERVER_SETTINGS.retrievalCacheTtlMs, 1000, 86_400_000, 'milliseconds'),
  };

  const mcp = readMcpSettings(read, problems);
  const rawRetention = read('CONVERSATION_RETENTION_DAYS');
  let conversationRetentionDays: number | undefined;
  if (rawRetention !== undefined) {
    if (/^\d+$/.test(rawRetention) && Number(rawRetention) >= 1 && Number(rawRetention) <= 36_500)
      conversationRetentionDays = Number(rawRetention);
    else
      problems.push(
        `CONVERSATION_RETENTION_DAYS="${rawRetention}" is not valid: set it to a whole number of days between 1 and 36500, or unset it to keep conversations until their readers delete them.`,
      );
  }

  const metricsToken = read('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < DEFAULT_SERVER_SETTINGS.adminTokenMinLength) {
    problems.push(
      `METRICS_TOKEN is too short to be safe: use at least ${DEFAULT_SERVER_SETTINGS.adminTokenMinLength} random characters (e.g. the output of "openssl rand -hex 32"), or unset it to leave /metrics open.`,
    );
  }

  const insightsCacheMs =
    integer('INSIGHTS_CACHE_SECONDS', DEFAULT_SERVER_SETTINGS.insightsCacheSeconds, 0, 3600, 'seconds (0 builds a report per request)') *
    1000;

  if (problems.length > 0) {
    throw new DocsChatError('config_invalid', `The server configuration is invalid:\n  - ${problems.join('\n  - ')}`, {
      hint: 'Fix these variables in the environment or in .env (see .env.example), then start the server again.',
    });
  }
  return {
    port,
    host,
    databaseUrl,
    llm,
    corsOrigins,
    rateLimit,
    feedbackRateLimit,
    conversationRateLimit,
    bodyLimitBytes,
    requestTimeoutMs,
    headersTimeoutMs,
    adminToken,
    gitWebhookSecret,
    logLevel,
    shutdownGraceMs,
    heartbeatMs,
    healthCheckTimeoutMs,
    healthCacheMs,
    memorySoftLimitMb,
    trustProxy,
    retrievalCache,
    mcp,
    conversationRetentionDays,
    metricsToken,
    insightsCacheMs,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** How many server processes to run from WORKERS: `auto` is one per CPU core. */
export const MAX_WORKERS_PER_CORE = 4;

/**
 * Reads WORKERS (default 1: one process, no cluster). More than one needs DATABASE_URL: embedded PGlite
 * lives in one process, and the rate limits are shared through the database. Throws `config_invalid`.
 */
export function readWorkerCount(env: NodeJS.ProcessEnv, cores: number): number {
  const raw = env.WORKERS?.trim().toLowerCase();
  const max = cores * MAX_WORKERS_PER_CORE;
  let workers = 1;
  if (raw !== undefined && raw !== '') {
    if (raw === 'auto') workers = cores;
    else if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= max) workers = Number(raw);
    else {
      throw new DocsChatError(
        'config_invalid',
        `WORKERS="${env.WORKERS?.trim()}" is not valid: set it to auto (one server process per CPU core, ${cores} here) or a whole number from 1 to ${max} (${MAX_WORKERS_PER_CORE} per core).`,
        {
          hint: 'Fix WORKERS in the environment or in .env, or unset it to run one process.',
        },
      );
    }
  }
  if (workers > 1 && !env.DATABASE_URL?.trim()) {
    throw new DocsChatError(
      'config_invalid',
      `WORKERS=${raw} runs ${workers} server processes, which needs DATABASE_URL: the embedded PGlite database can only be opened by one process, and the processes share conversations and rate limits through PostgreSQL.`,
      {
        hint: 'Set DATABASE_URL to a PostgreSQL server (e.g. postgres://user:password@localhost:5432/docs_chat), or set WORKERS=1.',
      },
    );
  }
  if (workers > 1 && env.GIT_URL?.trim()) {
    throw new DocsChatError(
      'config_invalid',
      `WORKERS=${raw} cannot be combined with GIT_URL: the background git sync and its webhook run in a single server process.`,
      {
        hint: 'Set WORKERS=1, or unset GIT_URL and run `docs-chat ingest` on a schedule instead.',
      },
    );
  }
  return workers;
}

/** Everything the server needs: its own settings and the core's retrieval settings. */
export interface ServerConfig {
  server: ServerSettings;
  core: CoreConfig;
}

/** Reads both halves, reporting the problems of both at once so one start-up shows every fix needed. */
export function loadConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ServerConfig {
  const failures: DocsChatError[] = [];
  let server: ServerSettings | undefined;
  let core: CoreConfig | undefined;
  try {
    server = loadServerSettings(env);
  } catch (error) {
    if (!(error instanceof DocsChatError)) throw error;
    failures.push(error);
  }
  try {
    core = loadCoreConfig(env, cwd);
  } catch (error) {
    if (!(error instanceof DocsChatError)) throw error;
    failures.push(error);
  }
  if (server && core) return { server, core };
  if (failures.length === 1 && failures[0]) throw failures[0];
  throw new DocsChatError('config_invalid', failures.map((failure) => failure.describe()).join('\n'), {
    hint: 'Fix these variables in the environment or in .env (see .env.example), then start the server again.',
  });
}
