import {
  CHAT_PROTOCOL_HEADER,
  CHAT_PROTOCOL_VERSION,
  ChatStreamProtocolError,
  READABLE_PROTOCOL_MAJORS,
  createChatStreamParser,
  type ChatRequest,
  type ChatStreamEvent,
} from '@docs-chat/protocol';
import { ChatClientError, errorFromResponse, errorFromStreamEvent, isAbortError } from './chat-errors.js';

export type FetchFunction = typeof fetch;

export interface StreamChatOptions {
  serverUrl: string;
  request: ChatRequest;
  /** Called for every protocol event, in order, as frames arrive. */
  onEvent: (event: ChatStreamEvent) => void;
  signal?: AbortSignal;
  fetch?: FetchFunction;
}

export type StreamOutcome = 'done' | 'aborted';

function majorVersion(version: string): string {
  return version.split('.')[0] ?? version;
}

/**
 * Sends a question to `POST /chat` and feeds the SSE answer through the shared
 * protocol parser. Resolves 'done' when the stream ends with `done`, 'aborted'
 * when the signal fires; rejects with a ChatClientError for anything a reader
 * should be told about (including an `error` event, after passing it to onEvent).
 */
export async function streamChat({
  serverUrl,
  request,
  onEvent,
  signal,
  fetch: fetchImpl = fetch,
}: StreamChatOptions): Promise<StreamOutcome> {
  let response: Response;
  try {
    response = await fetchImpl(`${serverUrl}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(request),
      signal: signal ?? null,
    });
  } catch (error) {
    if (isAbortError(error) || signal?.aborted) return 'aborted';
    throw new ChatClientError('network', 'The docs-chat server could not be reached.');
  }
  if (!response.ok) throw await errorFromResponse(response);

  const serverVersion = response.headers.get(CHAT_PROTOCOL_HEADER);
  // A 1.x server is read too (in its casing), so the plugin can be upgraded before the server.
  if (serverVersion !== null && !READABLE_PROTOCOL_MAJORS.includes(majorVersion(serverVersion))) {
    await response.body?.cancel();
    throw new ChatClientError('protocol', `The server speaks chat protocol ${serverVersion}; this page expects ${CHAT_PROTOCOL_VERSION}.`, {
      retryable: false,
    });
  }
  if (!response.body) throw new ChatClientError('protocol', 'The server answered without a stream.', { retryable: false });

  // An object rather than two lets: they are set inside the parser callback.
  const progress: { finished: boolean; error: ChatClientError | null } = { finished: false, error: null };
  // Every event passes the protocol's type guard first; from a later minor version, unreadable ones are skipped.
  const parser = createChatStreamParser(
    (event) => {
      if (event.type === 'done') progress.finished = true;
      if (event.type === 'error') progress.error = errorFromStreamEvent(event);
      onEvent(event);
    },
    { serverVersion },
  );

  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      if (progress.error) {
        // The server ends the stream after an error event; do not wait for it.
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
    parser.push(decoder.decode());
    parser.end();
  } catch (error) {
    if (isAbortError(error) || signal?.aborted) return 'aborted';
    if (error instanceof ChatStreamProtocolError) {
      throw new ChatClientError('protocol', 'The server sent a malformed answer stream.', { retryable: true });
    }
    throw new ChatClientError('network', 'The connection was lost while the answer was streaming.');
  } finally {
    reader.releaseLock();
  }
  if (progress.error) throw progress.error;
  if (signal?.aborted) return 'aborted';
  if (!progress.finished) throw new ChatClientError('network', 'The answer stream ended before the answer was complete.');
  return 'done';
}
