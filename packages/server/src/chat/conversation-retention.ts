/**
 * CONVERSATION_RETENTION_DAYS: a sweep that removes conversations idle for
 * longer than that, with their messages, ratings and shares. It runs soon
 * after start-up and then every hour; its timer is unref'd so it never keeps
 * the process alive, and each sweep is logged with how many it removed.
 */
import type { ConversationGateway, ServerLogger } from './conversation-gateway.js';
import { describeError } from './conversation-gateway.js';

const DAY_MS = 86_400_000;
/** Rows removed per statement, so one statement stays well under the query timeout on a large table. */
const BATCH = 500;

export interface ConversationRetentionOptions {
  retentionDays: number;
  conversations: Pick<ConversationGateway, 'run'>;
  logger: ServerLogger;
  /** Between sweeps (default one hour). */
  intervalMs?: number;
  /** Before the first sweep (default one minute, out of the way of start-up). */
  firstDelayMs?: number;
  now?: () => number;
}

export interface ConversationRetention {
  /** One sweep now; resolves to how many conversations were removed. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startConversationRetention(options: ConversationRetentionOptions): ConversationRetention {
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | null = null;
  let stopped = false;

  const sweepOnce = async (): Promise<number> => {
    const cutoff = new Date(now() - options.retentionDays * DAY_MS);
    let removed = 0;
    for (;;) {
      const batch = await options.conversations.run((store) => store.deleteConversationsOlderThan(cutoff, BATCH));
      removed += batch;
      if (batch < BATCH || stopped) break;
    }
    options.logger.info(
      { removed, retentionDays: options.retentionDays, cutoff: cutoff.toISOString() },
      'conversation retention sweep done',
    );
    return removed;
  };

  const sweep = (): Promise<number> => {
    running ??= sweepOnce().finally(() => {
      running = null;
    });
    return running;
  };

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) =>
          options.logger.warn({ err: describeError(error) }, 'conversation retention sweep failed; it runs again at the next interval'),
        )
        .finally(() => schedule(options.intervalMs ?? 3_600_000));
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? 60_000);

  return {
    sweep,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
