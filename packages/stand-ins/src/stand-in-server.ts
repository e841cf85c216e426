/**
 * HTTP plumbing shared by the protocol stand-ins: a node:http server on
 * 127.0.0.1 that records requests, tracks open sockets (so `close()` never
 * waits on a keep-alive connection) and writes event streams whose pacing and
 * faults tests can steer.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the stand-in saw it, with credentials removed. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters, without any `key`. */
  query: Record<string, string>;
  /** Lower-case header names; `authorization` and `x-goog-api-key` are left out. */
  headers: Record<string, string>;
  /** Parsed JSON body, or `undefined` for requests without one. */
  body: unknown;
}

/** How a stream ended, from the stand-in's side. */
export type StreamOutcome = 'completed' | 'client-disconnected' | 'cut';

/** One streamed response, so tests can assert that a client's disconnect reached the server. */
export interface StreamRecord {
  path: string;
  /** Aborted when the client goes away before the stream has ended. */
  readonly signal: AbortSignal;
  /** Settles once the stream is over, however it ended. */
  readonly closed: Promise<StreamOutcome>;
  /** Events written so far. */
  eventsSent: number;
  outcome: StreamOutcome | undefined;
}

export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`stand-in answered ${status}`);
  }
}

export interface StandInContext {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  recorded: RecordedRequest;
}

export interface RunningServer {
  url: string;
  requests: RecordedRequest[];
  streams: StreamRecord[];
  openConnections: () => number;
  close: () => Promise<void>;
}

const HIDDEN_HEADERS = new Set(['authorization', 'x-goog-api-key']);
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function startHttpServer(
  handle: (context: StandInContext) => Promise<void>,
  renderUnexpectedError: (error: unknown) => HttpFailure,
): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  const requests: RecordedRequest[] = [];
  const streams: StreamRecord[] = [];

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: decodeURIComponent(url.pathname),
        query: Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'key')),
        headers: visibleHeaders(request),
        body: undefined,
      };
      requests.push(recorded);
      try {
        recorded.body = await readJsonBody(request);
        await handle({ request, response, url, recorded });
      } catch (error) {
        const failure = error instanceof HttpFailure ? error : renderUnexpectedError(error);
        if (!response.headersSent) sendJson(response, failure.status, failure.body, failure.headers);
        else response.destroy();
      }
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    streams,
    openConnections: () => sockets.size,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive and streaming sockets would hold server.close() open: end them, and wait until they are gone.
      const socketsGone = [...sockets].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            socket.destroy();
          }),
      );
      await Promise.all([closed, ...socketsGone]);
    },
  };
}

function visibleHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (HIDDEN_HEADERS.has(name) || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new HttpFailure(413, { error: { message: 'Request body too large.' } });
    parts.push(part);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(parts).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SyntaxError(`Invalid JSON payload received: ${text.slice(0, 80)}`);
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export interface EventStreamOptions {
  /** Read before each event, so a delay changed at runtime applies to streams in flight. */
  delayMs: () => number;
  /** Destroy the socket after this many events, as a dropped connection would. */
  cutAfter: number | undefined;
}

/**
 * Writes already-framed events one by one. The stream ends by closing the
 * response, or by destroying the socket when told to cut it.
 */
export async function writeEventStream(
  context: StandInContext,
  streams: StreamRecord[],
  frames: string[],
  options: EventStreamOptions,
): Promise<void> {
  const { response } = context;
  const controller = new AbortController();
  let settle: (outcome: StreamOutcome) => void = () => {};
  const record: StreamRecord = {
    path: context.recorded.path,
    signal: controller.signal,
    closed: new Promise<StreamOutcome>((resolve) => {
      settle = resolve;
    }),
    eventsSent: 0,
    outcome: undefined,
  };
  const finish = (outcome: StreamOutcome): void => {
    if (record.outcome !== undefined) return;
    record.outcome = outcome;
    if (outcome === 'client-disconnected') controller.abort(new Error('The client closed the stream.'));
    settle(outcome);
  };
  streams.push(record);
  response.on('close', () => finish(response.writableFinished ? 'completed' : 'client-disconnected'));

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();

  for (const frame of frames) {
    if (record.outcome !== undefined) return;
    const delay = options.delayMs();
    if (delay > 0) await sleepUnlessAborted(delay, controller.signal);
    if (record.outcome !== undefined) return;
    if (options.cutAfter !== undefined && record.eventsSent >= options.cutAfter) {
      finish('cut');
      response.socket?.destroy();
      return;
    }
    // Wait until the event has left the process, so a cut right after it does not swallow it.
    await new Promise<void>((resolve) => response.write(frame, () => resolve()));
    record.eventsSent += 1;
  }
  response.end();
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A rough token count (about four characters a token), enough for usage figures. */
export function approximateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
