/**
 * `POST models/{model}:streamGenerateContent?alt=sse`, read straight off a
 * node:http keep-alive connection with `eventsource-parser`, one JSON.parse
 * per event.
 *
 * Why not the SDK here (budget: server CPU per answer <= 2.0 ms at 200
 * readers, issue 16): under @google/genai each streamed event becomes a web
 * `Response`, goes through web streams and is parsed as JSON twice; a CPU
 * profile of the chat benchmark put about 30 % of the server's time per answer
 * there. The SDK still does the start-up key and model check (`verify`), where
 * its cost does not matter. Only this one call is read by hand; the framing is
 * left to a maintained SSE parser.
 *
 * Failures look like what the SDK and fetch throw, so `toLlmError` maps them
 * the same way: a non-2xx answer throws `GeminiHttpError` (its `status`, and the
 * error body as message, where RetryInfo and the key error are read); a
 * connection that fails before the answer throws `TypeError('fetch failed')`
 * with the system error as cause; a body cut short throws
 * `TypeError('terminated')`; an abort throws the signal's reason.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createParser } from 'eventsource-parser';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/** One streamed event: a whole GenerateContentResponse holding the new text only (proto-JSON, camelCase). */
export interface GeminiStreamChunk {
  candidates?: {
    content?: { role?: string; parts?: { text?: string; thought?: boolean }[] };
    finishReason?: string;
  }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    totalTokenCount?: number;
  };
}

/** Gemini answered with an error status; `message` is the error body as sent (JSON with `error.message`, `details`). */
export class GeminiHttpError extends Error {
  readonly status: number;

  constructor(status: number, body: string) {
    super(body.trim() === '' ? `HTTP ${status}` : body);
    this.name = 'GeminiHttpError';
    this.status = status;
  }
}

export interface GeminiStreamClientOptions {
  apiKey: string;
  model: string;
  /** Root URL (`/v1beta` is appended); the public API when absent. */
  baseUrl?: string;
}

export interface GeminiStreamClient {
  /** Sends the request body and yields each event's parsed JSON until the server closes the stream. */
  stream(body: unknown, signal: AbortSignal): AsyncGenerator<GeminiStreamChunk>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

/** The REST resource of a model name: `gemini-x` -> `models/gemini-x`; `models/...` and `tunedModels/...` as given. */
function modelResource(model: string): string {
  return /^(models|tunedModels)\//.test(model) ? model : `models/${model}`;
}

export function createGeminiStreamClient(options: GeminiStreamClientOptions): GeminiStreamClient {
  const root = (options.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1beta$/, '');
  const url = new URL(`${root}/v1beta/${modelResource(options.model)}:streamGenerateContent?alt=sse`);
  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  // No accept-encoding: the event stream comes uncompressed, so nothing has to be inflated per chunk.
  const headers = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'x-goog-api-key': options.apiKey,
    'user-agent': 'docs-chat',
  };

  function open(payload: string, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise<IncomingMessage>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const request = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) } });
      const onAbort = (): void => {
        request.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      request.once('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      request.once('response', (incoming) => {
        // From here the body's own reader watches the signal.
        signal.removeEventListener('abort', onAbort);
        resolve(incoming);
      });
      request.end(payload);
    });
  }

  async function readAll(incoming: IncomingMessage): Promise<string> {
    incoming.setEncoding('utf8');
    let text = '';
    for await (const chunk of incoming) text += chunk as string;
    return text;
  }

  async function* stream(body: unknown, signal: AbortSignal): AsyncGenerator<GeminiStreamChunk> {
    const incoming = await open(JSON.stringify(body), signal);
    const onAbort = (): void => {
      incoming.destroy(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const status = incoming.statusCode ?? 0;
      if (status < 200 || status >= 300) throw new GeminiHttpError(status, await readAll(incoming));
      const pending: string[] = [];
      const parser = createParser({ onEvent: (event) => pending.push(event.data) });
      incoming.setEncoding('utf8');
      try {
        for await (const chunk of incoming) {
          parser.feed(chunk as string);
          for (let index = 0; index < pending.length; index += 1) yield JSON.parse(pending[index]!) as GeminiStreamChunk;
          pending.length = 0;
        }
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof SyntaxError) throw error;
        throw new TypeError('terminated', { cause: error });
      }
      // The connection closed before the body's end: a stream cut short. (An unfinished last event is
      // dropped, as EventSource does.)
      if (!incoming.complete) throw signal.aborted ? signal.reason : new TypeError('terminated', { cause: new Error('other side closed') });
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Stopped early (the reader left, or an error above): close this connection rather than reuse it.
      if (!incoming.complete) incoming.destroy();
    }
  }

  return {
    stream,
    close() {
      agent.destroy();
    },
  };
}
