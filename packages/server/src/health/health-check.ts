/**
 * What `/health` reports. Each dependency is checked in parallel with its own
 * timeout, so the answer always comes back quickly whatever is down. The vector
 * store is required (no answers without it): down means `unhealthy`. Postgres
 * and the language model are not: the chat keeps streaming, so down means
 * `degraded`. The model is never called here: its key was checked once at
 * start-up and that result is reported.
 */
import type { StoreStatus } from '../core-api.js';
import type { ChatModelProvider } from '../llm/chat-model.js';

export type ServiceStatus = 'up' | 'down';
export type OverallStatus = 'healthy' | 'degraded' | 'unhealthy';

/** The start-up check of the model, kept for every health poll. */
export interface LlmCheck {
  status: ServiceStatus;
  provider: ChatModelProvider;
  model: string;
  /** Why it is down, for operators (never contains the key). */
  detail?: string;
}

export interface HealthReport {
  status: OverallStatus;
  services: {
    server: { status: 'up'; uptime_seconds: number; active_streams: number };
    vector_store: { status: ServiceStatus; backend: string; collection: string; vectors: number | null; detail?: string };
    postgres: { status: ServiceStatus; backend: string; detail?: string };
    llm: LlmCheck;
    /** The embedder questions are embedded with (the neural one runs in worker threads), when the server knows it. */
    embedder?: { provider: string; model: string; dimensions: number };
  };
  timestamp: string;
  /** When the dependencies were last checked (the report reuses a check up to HEALTH_CACHE_MS old). */
  checked_at: string;
}

export interface HealthSources {
  vectorStore: () => { backend: string; collection: string; status(signal?: AbortSignal): Promise<StoreStatus> };
  conversations: { backend: string; ping(timeoutMs: number): Promise<void> };
  llm: LlmCheck;
  embedder?: () => { provider: string; model: string; dimensions: number } | undefined;
  activeStreams: () => number;
  timeoutMs: number;
  startedAt: number;
}

export async function checkHealth(sources: HealthSources): Promise<HealthReport> {
  const store = sources.vectorStore();
  const [vectorStore, postgres] = await Promise.all([
    withTimeout((signal) => store.status(signal), sources.timeoutMs).then(
      (status) => ({ status: 'up' as const, backend: status.backend, collection: status.collection, vectors: status.vectors }),
      (error: unknown) => ({
        status: 'down' as const,
        backend: store.backend,
        collection: store.collection,
        vectors: null,
        detail: reason(error, 'vector store'),
      }),
    ),
    withTimeout(() => sources.conversations.ping(sources.timeoutMs), sources.timeoutMs).then(
      () => ({ status: 'up' as const, backend: sources.conversations.backend }),
      (error: unknown) => ({ status: 'down' as const, backend: sources.conversations.backend, detail: reason(error, 'database') }),
    ),
  ]);
  const status: OverallStatus =
    vectorStore.status === 'down' ? 'unhealthy' : postgres.status === 'down' || sources.llm.status === 'down' ? 'degraded' : 'healthy';
  return {
    status,
    services: {
      server: {
        status: 'up',
        uptime_seconds: Math.round((Date.now() - sources.startedAt) / 1000),
        active_streams: sources.activeStreams(),
      },
      vector_store: vectorStore,
      postgres,
      llm: sources.llm,
      ...embedderOf(sources),
    },
    timestamp: new Date().toISOString(),
    checked_at: new Date().toISOString(),
  };
}

export interface HealthReporter {
  report(): Promise<HealthReport>;
}

/**
 * Serves /health from the last dependency check while it is younger than `maxAgeMs`, so a poll costs no
 * database round trip and answers at once however busy the server is. An older check is served as it is
 * while one fresh check runs in the background (concurrent polls share it); only a poll with no check yet,
 * or a check more than ten times too old, waits for a fresh one. The server's own figures (uptime, active
 * streams, timestamp) are always current. `maxAgeMs` 0 checks on every poll.
 */
export function createHealthReporter(sources: HealthSources, maxAgeMs: number): HealthReporter {
  let last: { report: HealthReport; at: number } | null = null;
  let running: Promise<HealthReport> | null = null;

  const refresh = (): Promise<HealthReport> => {
    running ??= checkHealth(sources)
      .then((report) => {
        last = { report, at: Date.now() };
        return report;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    async report() {
      const age = last === null ? Infinity : Date.now() - last.at;
      if (last === null || maxAgeMs === 0 || age > maxAgeMs * 10) return refresh();
      if (age > maxAgeMs) void refresh().catch(() => undefined);
      const cached = last.report;
      return {
        ...cached,
        services: {
          ...cached.services,
          server: {
            status: 'up',
            uptime_seconds: Math.round((Date.now() - sources.startedAt) / 1000),
            active_streams: sources.activeStreams(),
          },
        },
        timestamp: new Date().toISOString(),
      };
    },
  };
}

function embedderOf(sources: HealthSources): { embedder?: { provider: string; model: string; dimensions: number } } {
  const embedder = sources.embedder?.();
  return embedder ? { embedder: { provider: embedder.provider, model: embedder.model, dimensions: embedder.dimensions } } : {};
}

class CheckTimeoutError extends Error {}

/** Gives up after `ms` even when the check ignores its abort signal. */
async function withTimeout<T>(check: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckTimeoutError(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([check(controller.signal), timeout]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** A short operator-facing reason: the error's code or class and message, trimmed. */
function reason(error: unknown, what: string): string {
  if (error instanceof CheckTimeoutError) return `${what} did not answer: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    // Connection errors may quote a URL; keep credentials out of a public endpoint.
    const text = `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`.replace(/\/\/[^\s/@]+@/g, '//***@');
    return text.slice(0, 300);
  }
  return `${what} check failed`;
}
