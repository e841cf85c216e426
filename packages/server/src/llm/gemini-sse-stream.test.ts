/**
 * The Gemini answer stream read off the wire: against the Gemini stand-in, and
 * against a raw HTTP server replaying a fixture in the real API's framing
 * (`data: <json>\r\n\r\n`) cut into awkward pieces, as TCP may deliver it.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { chatRequest, drain } from './chat-model-test-support.js';
import { createGeminiChatModel } from './gemini-chat-model.js';
import { createGeminiStreamClient, GeminiHttpError, type GeminiStreamChunk } from './gemini-sse-stream.js';

const THINKING_ANSWER = readFileSync(new URL('./__fixtures__/gemini-sse/thinking-answer.sse', import.meta.url));
const FAST_RETRIES = { attempts: 3, baseDelayMs: 20, maxServerDelayMs: 5_000 };

/** A server that answers every request with `send(response)`. */
async function rawServer(send: (response: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.once('end', () => send(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `bytes` in pieces of the given sizes (the rest in one last piece), a few ms apart. */
function writeInPieces(response: ServerResponse, bytes: Buffer, sizes: number[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  pieces.push(bytes.subarray(offset));
  const next = (): void => {
    const piece = pieces.shift();
    if (piece === undefined) {
      response.end();
      return;
    }
    response.write(piece);
    setTimeout(next, 2);
  };
  next();
}

async function collect(stream: AsyncIterable<GeminiStreamChunk>): Promise<GeminiStreamChunk[]> {
  const chunks: GeminiStreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('the Gemini answer stream', () => {
  it('yields every event of the real framing whole, however the bytes are split', async () => {
    const whole = THINKING_ANSWER;
    // Cuts inside "data:", inside the JSON, between \r and \n, and inside the multi-byte characters (—, “, ✓).
    const dash = whole.indexOf(Buffer.from('—'));
    const check = whole.indexOf(Buffer.from('✓'));
    const crlf = whole.indexOf(Buffer.from('\r\n\r\n'));
    const cuts = [3, crlf - 3 + 1, dash + 1 - (crlf + 1), check + 2 - (dash + 1)];
    const server = await rawServer((response) => writeInPieces(response, whole, cuts));
    try {
      const client = createGeminiStreamClient({ apiKey: 'k', model: 'gemini-3.8-flash', baseUrl: server.url });
      const chunks = await collect(client.stream({ contents: [] }, new AbortController().signal));
      client.close();
      expect(chunks).toHaveLength(4);
      expect(chunks[2]?.candidates?.[0]?.content?.parts?.[0]?.text).toBe('`configureStore` — “middleware” [1]. ✓');
      expect(chunks[3]?.candidates?.[0]?.finishReason).toBe('STOP');
    } finally {
      await server.close();
    }
  });

  it('gives the chat model the answer text without the thinking part, with the last usage, from the split fixture', async () => {
    const server = await rawServer((response) => writeInPieces(response, THINKING_ANSWER, [1, 1, 7, 200, 13, 301, 2]));
    try {
      const model = createGeminiChatModel({ apiKey: 'k', model: 'gemini-3.8-flash', baseUrl: server.url, retryPolicy: FAST_RETRIES });
      const result = await drain(model.stream(chatRequest()));
      expect(result.error).toBeUndefined();
      expect(result.text).toBe('Pass the middleware to `configureStore` — “middleware” [1]. ✓');
      expect(result.finish).toEqual({
        type: 'finish',
        reason: 'stop',
        usage: { prompt_tokens: 812, completion_tokens: 32, total_tokens: 844 },
      });
    } finally {
      await server.close();
    }
  });

  it('reads frames ended by \\n\\n as well as \\r\\n\\r\\n', async () => {
    const lf = Buffer.from(THINKING_ANSWER.toString('utf8').replaceAll('\r\n', '\n'));
    const server = await rawServer((response) => writeInPieces(response, lf, [50, 50]));
    try {
      const client = createGeminiStreamClient({ apiKey: 'k', model: 'gemini-3.8-flash', baseUrl: server.url });
      expect(await collect(client.stream({}, new AbortController().signal))).toHaveLength(4);
      client.close();
    } finally {
      await server.close();
    }
  });

  it('fails as a cut stream when the connection closes in the middle of an event', async () => {
    const server = await rawServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const text = THINKING_ANSWER.toString('utf8');
      response.write(text.slice(0, text.indexOf('\r\n\r\n', text.indexOf('Pass the')) + 4 + 20));
      setTimeout(() => response.socket?.destroy(), 10);
    });
    try {
      const model = createGeminiChatModel({ apiKey: 'k', model: 'gemini-3.8-flash', baseUrl: server.url, retryPolicy: FAST_RETRIES });
      const result = await drain(model.stream(chatRequest()));
      expect(result.text).toBe('Pass the middleware to ');
      expect(result.error?.code).toBe('llm_stream_cut');
    } finally {
      await server.close();
    }
  });

  describe('against the Gemini stand-in', () => {
    let standIn: GeminiStandIn;

    beforeAll(async () => {
      standIn = await startGeminiStandIn({ replyText: 'Wrap the store with applyMiddleware [1].' });
    });

    afterAll(async () => {
      await standIn.close();
    });

    beforeEach(() => standIn.reset());

    it('sends the key in the header and the body as JSON, and reuses the connection for the next answer', async () => {
      const client = createGeminiStreamClient({ apiKey: standIn.apiKey, model: 'gemini-3.8-flash', baseUrl: `${standIn.url}/v1beta` });
      const first = await collect(client.stream({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, new AbortController().signal));
      await collect(client.stream({ contents: [{ role: 'user', parts: [{ text: 'again' }] }] }, new AbortController().signal));
      expect(first.map((chunk) => chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? '').join('')).toBe(
        'Wrap the store with applyMiddleware [1].',
      );
      expect(standIn.requests.map((request) => request.path)).toEqual([
        '/v1beta/models/gemini-3.8-flash:streamGenerateContent',
        '/v1beta/models/gemini-3.8-flash:streamGenerateContent',
      ]);
      expect(standIn.openConnections()).toBe(1);
      client.close();
    });

    it('throws the status and the error body of a refused request, where the retry delay is read', async () => {
      standIn.failNext({ status: 429, retryDelay: '2s' });
      const client = createGeminiStreamClient({ apiKey: standIn.apiKey, model: 'gemini-3.8-flash', baseUrl: standIn.url });
      const failure = await collect(client.stream({}, new AbortController().signal)).catch((error: unknown) => error);
      client.close();
      expect(failure).toBeInstanceOf(GeminiHttpError);
      expect((failure as GeminiHttpError).status).toBe(429);
      expect((failure as GeminiHttpError).message).toContain('"retryDelay":"2s"');
    });

    it('rejects with the reader’s reason when aborted before the answer starts', async () => {
      standIn.setDelay(200);
      const client = createGeminiStreamClient({ apiKey: standIn.apiKey, model: 'gemini-3.8-flash', baseUrl: standIn.url });
      const controller = new AbortController();
      const reason = new Error('the reader left');
      // Abort once the stand-in holds the request and waits to send the first event: a fixed 20 ms timer
      // raced the request itself on a loaded machine (CI), and then no stream was ever opened.
      const before = standIn.streams.length;
      const waiting = setInterval(() => {
        if (standIn.streams.length === before) return;
        clearInterval(waiting);
        controller.abort(reason);
      }, 2);
      await expect(collect(client.stream({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, controller.signal))).rejects.toBe(
        reason,
      );
      await expect(standIn.lastStream?.closed).resolves.toBe('client-disconnected');
      client.close();
    });
  });
});
