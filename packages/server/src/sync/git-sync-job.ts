/**
 * The git sync as a background job: one run at a time, started by
 * `POST /admin/sync` or a webhook. A request during a run queues exactly one
 * more run (however many arrive), since that run will see every commit pushed
 * meanwhile. git and the ingest never run on the request path: routes only
 * call `request()` and read `status()`.
 */
import type { Logger } from 'pino';
import { describeError } from '../chat/conversation-gateway.js';
import { isDocsChatError } from '../core-api.js';

export interface SyncProgress {
  phase: string;
  done: number;
  total: number;
}

/** The parts of the core's report the status shows. */
export interface SyncReport {
  git?: { from: string | null; to: string; mode: string; changedFiles?: number; reason?: string } | undefined;
  files: { added: number; modified: number; deleted: number; unchanged: number; failed: unknown[] };
  chunks: { total: number };
  embedding: { calls: number };
  durationMs: number;
}

export type RunGitSync = (options: { onProgress: (progress: SyncProgress) => void }) => Promise<SyncReport>;

export interface SyncStatus {
  state: 'idle' | 'running';
  /** Whether one more run will follow the current one. */
  queued: boolean;
  /** What started the current or last run: `admin`, `github`, `gitlab`. */
  trigger: string | null;
  progress: SyncProgress | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** The commit the index was last built from by a successful sync. */
  lastCommit: string | null;
  /** The last successful run's summary. */
  lastResult: {
    from: string | null;
    to: string;
    mode: string;
    changedFiles?: number;
    files: SyncReport['files'];
    chunks: number;
    embeddingCalls: number;
    durationMs: number;
  } | null;
  /** The last run's error (cleared by a successful run); the previous index kept serving. */
  lastError: { code: string; message: string; hint?: string; at: string } | null;
}

export type SyncRequestResult = 'started' | 'queued' | 'already_queued';

export class GitSyncJob {
  private readonly current: SyncStatus = {
    state: 'idle',
    queued: false,
    trigger: null,
    progress: null,
    startedAt: null,
    finishedAt: null,
    lastCommit: null,
    lastResult: null,
    lastError: null,
  };
  private running: Promise<void> | null = null;
  private queuedTrigger: string | null = null;

  constructor(
    private readonly run: RunGitSync,
    private readonly logger: Logger,
    /** The commit the index was built from when the server started (recorded in the index). */
    initialCommit: string | null = null,
  ) {
    this.current.lastCommit = initialCommit;
  }

  /** Starts a run, or queues one (once) behind the running one. */
  request(trigger: string): SyncRequestResult {
    if (this.running) {
      if (this.queuedTrigger !== null) return 'already_queued';
      this.queuedTrigger = trigger;
      this.current.queued = true;
      return 'queued';
    }
    this.running = this.loop(trigger).finally(() => {
      this.running = null;
    });
    return 'started';
  }

  status(): SyncStatus {
    return structuredClone(this.current);
  }

  /** Resolves when no run is going (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(firstTrigger: string): Promise<void> {
    let trigger: string | null = firstTrigger;
    while (trigger !== null) {
      await this.runOnce(trigger);
      trigger = this.queuedTrigger;
      this.queuedTrigger = null;
      this.current.queued = false;
    }
  }

  private async runOnce(trigger: string): Promise<void> {
    Object.assign(this.current, { state: 'running', trigger, progress: null, startedAt: new Date().toISOString(), finishedAt: null });
    this.logger.info({ trigger }, 'git sync started');
    try {
      const report = await this.run({ onProgress: (progress) => (this.current.progress = { ...progress }) });
      const git = report.git;
      this.current.lastCommit = git?.to ?? this.current.lastCommit;
      this.current.lastResult = {
        from: git?.from ?? null,
        to: git?.to ?? '',
        mode: git?.mode ?? 'full',
        ...(git?.changedFiles !== undefined ? { changedFiles: git.changedFiles } : {}),
        files: report.files,
        chunks: report.chunks.total,
        embeddingCalls: report.embedding.calls,
        durationMs: report.durationMs,
      };
      this.current.lastError = null;
      this.logger.info(
        { trigger, from: git?.from, to: git?.to, mode: git?.mode, embeddingCalls: report.embedding.calls },
        'git sync finished',
      );
    } catch (error) {
      // Core errors are written for admins (what failed and what to do) and hold no secrets (URLs are redacted).
      this.current.lastError = isDocsChatError(error)
        ? { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}), at: new Date().toISOString() }
        : { code: 'sync_failed', message: 'The git sync failed; see the server logs for details.', at: new Date().toISOString() };
      this.logger.error({ trigger, err: describeError(error) }, 'git sync failed; the previous index keeps serving');
    } finally {
      Object.assign(this.current, { state: 'idle', progress: null, finishedAt: new Date().toISOString() });
    }
  }
}
