/**
 * Maps whatever an embedding SDK throws to a DocsChatError at the adapter
 * boundary, so everything above (the pipeline's retries, the CLI, the server)
 * deals with one error type that knows whether trying again may help.
 */
import { DocsChatError, isAbortError, isDocsChatError } from '../errors.js';
import { isNetworkError, isRetryableStatus, retryAfterMsOf, statusOf } from '../retry.js';

export interface EmbedderErrorContext {
  /** Shown in messages, e.g. `Gemini` or `The OpenAI-compatible server`. */
  providerLabel: string;
  model: string;
  /** The variable holding the key, e.g. `GEMINI_API_KEY`. */
  keyVariable: string;
  /** The variable holding the server address, e.g. `GEMINI_BASE_URL`. */
  baseUrlVariable: string;
  /** A model name that works, suggested when the configured one is unknown. */
  suggestedModel: string;
  /** The caller's signal, to tell a cancellation from our own timeout. */
  signal: AbortSignal | undefined;
  timeoutMs: number;
  /** Recognises a rejected key in a 400 body (Gemini answers a bad key with 400). */
  isInvalidKey?: (error: unknown) => boolean;
}

export function toEmbedderError(error: unknown, context: EmbedderErrorContext): DocsChatError {
  if (isDocsChatError(error)) return error;
  const { providerLabel, model } = context;
  if (context.signal?.aborted) {
    return new DocsChatError('aborted', 'The embedding request was cancelled.', { cause: error });
  }
  if (isAbortError(error) || (error as { name?: unknown } | null)?.name === 'APIConnectionTimeoutError') {
    return new DocsChatError('embedder_unavailable', `${providerLabel} did not answer within ${context.timeoutMs} ms.`, {
      hint: 'Try again; if it keeps happening, check the network or the provider status page.',
      retryable: true,
      cause: error,
    });
  }

  const status = statusOf(error);
  if (status === undefined) {
    if (isNetworkError(error)) {
      return new DocsChatError('embedder_unavailable', `Could not reach ${providerLabel} to compute embeddings.`, {
        hint: `Check the network, and ${context.baseUrlVariable} if you set one.`,
        retryable: true,
        cause: error,
      });
    }
    return new DocsChatError('embedder_unavailable', `${providerLabel} embedding call failed: ${describeCause(error)}`, {
      hint: 'This looks like a bug or an unexpected answer; report it with the log above.',
      cause: error,
    });
  }

  const upstream = upstreamMessage(error);
  if (status === 429) {
    const retryAfterMs = retryAfterMsOf(error);
    return new DocsChatError('embedder_rate_limited', `${providerLabel} rate-limited the embedding requests.`, {
      hint: 'Wait a little and run again, or raise the quota of the project that owns the key.',
      retryable: true,
      status,
      cause: error,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (isRetryableStatus(status)) {
    return new DocsChatError('embedder_unavailable', `${providerLabel} failed to compute embeddings (HTTP ${status}).`, {
      hint: 'This is usually temporary; try again in a minute.',
      retryable: true,
      status,
      cause: error,
    });
  }
  if (status === 401 || context.isInvalidKey?.(error)) {
    return new DocsChatError('embedder_rejected', `${providerLabel} rejected the API key.`, {
      hint: `Check ${context.keyVariable}.`,
      status,
      cause: error,
    });
  }
  if (status === 403) {
    return new DocsChatError('embedder_rejected', `${providerLabel} refused the embedding request (HTTP 403).`, {
      hint: `Check ${context.keyVariable}: it is missing, or its project may not use this API.`,
      status,
      cause: error,
    });
  }
  if (status === 404) {
    return new DocsChatError('embedder_rejected', `${providerLabel} does not know the embedding model "${model}".`, {
      hint: `Set EMBEDDING_MODEL to ${context.suggestedModel} (or another embedding model your provider lists).`,
      status,
      cause: error,
    });
  }
  return new DocsChatError(
    'embedder_rejected',
    `${providerLabel} rejected the embedding request (HTTP ${status})${upstream ? `: ${upstream}` : '.'}`,
    {
      hint: 'Check EMBEDDING_MODEL and EMBEDDING_DIMENSIONS; very long chunks may also exceed the model input limit.',
      status,
      cause: error,
    },
  );
}

/** The human part of an SDK error: Gemini puts the JSON body in `message`. */
function upstreamMessage(error: unknown): string | undefined {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message !== 'string') return undefined;
  const start = message.indexOf('{');
  if (start !== -1) {
    try {
      const parsed = JSON.parse(message.slice(start)) as { error?: { message?: unknown } };
      if (typeof parsed.error?.message === 'string') return parsed.error.message.slice(0, 300);
    } catch {
      // not JSON: fall through to the raw text
    }
  }
  return message.slice(0, 300);
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
}

/** Gemini answers an invalid key with 400 and an ErrorInfo whose reason is API_KEY_INVALID. */
export function isGeminiInvalidKey(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.includes('API_KEY_INVALID');
}
