/**
 * Turns what the SDKs throw into LlmError at the provider boundary: a stable
 * code, whether another try may help, and a hint that names the variable to fix.
 * Messages never include the API key.
 */
import { isAbortError, isNetworkError, statusOf, retryAfterMsOf } from '@docs-chat/core';
import { LlmError } from './chat-model.js';

/** Which environment variables the hints should name. */
export interface ProviderNames {
  /** Human name of the service, e.g. "Gemini". */
  service: string;
  /** Environment variable holding the key, e.g. GEMINI_API_KEY. */
  keyVariable: string;
  model: string;
}

// Gemini answers a wrong key with 400 INVALID_ARGUMENT plus ErrorInfo reason API_KEY_INVALID.
function isInvalidKeyBody(text: string): boolean {
  return /API_KEY_INVALID|API key not valid|invalid[_ ]api[_ ]key|Incorrect API key/i.test(text);
}

/** A short, key-free description of the provider's error message. */
function upstreamMessage(error: unknown): string {
  const raw = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  const text = typeof raw === 'string' ? raw : String(error);
  // The genai ApiError message is the JSON error body; show its human part only.
  const start = text.indexOf('{');
  if (start !== -1) {
    try {
      const parsed = JSON.parse(text.slice(start)) as { error?: { message?: unknown } };
      if (typeof parsed.error?.message === 'string') return parsed.error.message;
    } catch {
      // Not JSON after all: fall through to the text itself.
    }
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function rawText(error: unknown): string {
  const raw = typeof error === 'object' && error !== null ? (error as { message?: unknown; error?: unknown }) : {};
  return `${typeof raw.message === 'string' ? raw.message : ''} ${JSON.stringify(raw.error ?? '')}`;
}

/** The system error code under a network failure ("fetch failed" alone tells the admin nothing). */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps any SDK or network failure to an LlmError. */
export function toLlmError(error: unknown, names: ProviderNames): LlmError {
  if (error instanceof LlmError) return error;
  if (isAbortError(error)) return new LlmError('aborted', 'The request was cancelled.', { cause: error });
  const status = statusOf(error);
  const detail = upstreamMessage(error);
  if (status === undefined) {
    const network = isNetworkError(error);
    const code = networkCode(error);
    const reason = code && !detail.includes(code) ? `${detail}: ${code}` : detail;
    return new LlmError('llm_unavailable', `${names.service} could not be reached (${reason}).`, {
      retryable: network,
      hint: `Check the network path to ${names.service} and its base URL.`,
      cause: error,
    });
  }
  if (status === 401 || status === 403 || (status === 400 && isInvalidKeyBody(rawText(error)))) {
    return new LlmError('llm_auth', `${names.service} rejected the API key in ${names.keyVariable} (${status}: ${detail}).`, {
      status,
      hint: `Set ${names.keyVariable} to a valid key with access to ${names.model}.`,
      cause: error,
    });
  }
  if (status === 404) {
    return new LlmError('llm_model_not_found', `${names.service} has no model "${names.model}" (LLM_MODEL): ${detail}`, {
      status,
      hint: `Set LLM_MODEL to a model this ${names.service} endpoint serves (it may have been retired).`,
      cause: error,
    });
  }
  if (status === 429) {
    const retryAfterMs = retryAfterMsOf(error);
    return new LlmError('llm_rate_limited', `${names.service} is rate limiting requests (${detail}).`, {
      status,
      retryable: true,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      hint: 'Wait a moment and try again; a higher quota or a lower request rate avoids this.',
      cause: error,
    });
  }
  if (status === 408 || status === 409 || status >= 500) {
    const retryAfterMs = retryAfterMsOf(error);
    return new LlmError('llm_unavailable', `${names.service} failed to answer (${status}: ${detail}).`, {
      status,
      retryable: true,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      hint: 'Try again in a moment.',
      cause: error,
    });
  }
  return new LlmError('llm_rejected', `${names.service} rejected the request (${status}: ${detail}).`, {
    status,
    hint: 'This is a bug or an unsupported setting (LLM_MODEL, token limits); the server log has the details.',
    cause: error,
  });
}
