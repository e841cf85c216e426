/**
 * A local docs-chat server for widget tests: real HTTP on 127.0.0.1 speaking
 * the chat stream protocol, so the widget's real fetch + SSE code runs. Each
 * test scripts what `POST /chat` answers (fixture frames, chunking, pauses).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CHAT_PROTOCOL_HEADER, CHAT_PROTOCOL_VERSION } from '@docs-chat/protocol';

export interface ScriptedChatAnswer {
  /** Raw SSE text to send (exactly as a server would write it). */
  body?: string;
  /** Sizes in bytes of the pieces the body is written in; the rest goes in one piece. */
  chunkSizes?: number[];
  /** Pause between pieces, in ms. */
  pauseMs?: number;
  /** Keep the response open after the body (to test Stop and closing). */
  holdOpen?: boolean;
  status?: number;
  headers?: Record<string, string>;
  /** For non-2xx answers: a JSON body. */
  json?: unknown;
}

export interface RecordedRequest {
  method: string;
  url: string;
  body: unknown;
}

export interface ChatTestServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers for the next POST /chat requests, in order (the last one repeats). */
  answerChatWith(...answers: ScriptedChatAnswer[]): void;
  conversations: Map<string, unknown>;
  /** Share id -> conversation id, as `POST /conversations/:id/share` made them. */
  shares: Map<string, string>;
  feedbackStatus: number;
  /** Resolves when the server saw a client close a held-open stream. */
  nextDisconnect(): Promise<void>;
  close(): Promise<void>;
}

const fixturesDir = new URL('../chat-client/__fixtures__/', import.meta.url);

/** Reads an SSE fixture from src/chat-client/__fixtures__/. */
export function readFixture(name: string): string {
  return readFileSync(new URL(name, fixturesDir), 'utf8');
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startChatTestServer(): Promise<ChatTestServer> {
  let answers: ScriptedChatAnswer[] = [];
  const requests: RecordedRequest[] = [];
  const conversations = new Map<string, unknown>();
  const shares = new Map<string, string>();
  const disconnectWaiters: (() => void)[] = [];
  const openResponses = new Set<ServerResponse>();
  const state = { feedbackStatus: 201 };

  const answerChat = async (response: ServerResponse): Promise<void> => {
    const answer = (answers.length > 1 ? answers.shift() : answers[0]) ?? {
      status: 500,
      json: { error: { code: 'internal_error', message: 'No scripted answer' } },
    };
    if (answer.json !== undefined || (answer.status ?? 200) >= 400) {
      response.writeHead(answer.status ?? 500, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.json ?? {}));
      return;
    }
    response.writeHead(answer.status ?? 200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      [CHAT_PROTOCOL_HEADER]: CHAT_PROTOCOL_VERSION,
      ...answer.headers,
    });
    response.flushHeaders();
    const bytes = Buffer.from(answer.body ?? '', 'utf8');
    let offset = 0;
    for (const size of answer.chunkSizes ?? []) {
      if (offset >= bytes.length || response.destroyed) break;
      response.write(bytes.subarray(offset, offset + size));
      offset += size;
      if (answer.pauseMs) await sleep(answer.pauseMs);
    }
    if (offset < bytes.length && !response.destroyed) response.write(bytes.subarray(offset));
    if (answer.holdOpen) {
      openResponses.add(response);
      return;
    }
    response.end();
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      requests.push({ method: request.method ?? '', url: request.url ?? '', body });
      response.on('close', () => {
        if (!response.writableFinished) disconnectWaiters.splice(0).forEach((resolve) => resolve());
        openResponses.delete(response);
      });
      if (request.method === 'POST' && request.url === '/chat') return answerChat(response);
      const conversation = /^\/conversations\/([^/]+)$/.exec(request.url ?? '');
      if (request.method === 'GET' && conversation) {
        const stored = conversations.get(decodeURIComponent(conversation[1] ?? ''));
        response.writeHead(stored ? 200 : 404, { 'content-type': 'application/json' });
        response.end(JSON.stringify(stored ?? { error: { code: 'conversation_not_found', message: 'No conversation has this id.' } }));
        return;
      }
      // Sharing and deleting, as the real server: a share shows the messages without ids; deleting removes the shares.
      const share = /^\/conversations\/([^/]+)\/share$/.exec(request.url ?? '');
      if (request.method === 'POST' && share) {
        const id = decodeURIComponent(share[1] ?? '');
        if (!conversations.has(id))
          return sendJson(response, 404, { error: { code: 'conversation_not_found', message: 'No conversation has this id.' } });
        const shareId = randomBytes(24).toString('base64url');
        shares.set(shareId, id);
        return sendJson(response, 201, { share_id: shareId, path: `/shared/${shareId}` });
      }
      const sharedView = /^\/shared\/([^/]+)$/.exec(request.url ?? '');
      if (request.method === 'GET' && sharedView) {
        const stored = conversations.get(shares.get(decodeURIComponent(sharedView[1] ?? '')) ?? '') as
          { created_at: string; messages: Record<string, unknown>[] } | undefined;
        if (!stored)
          return sendJson(response, 404, {
            error: { code: 'share_not_found', message: 'This shared conversation does not exist or was deleted.' },
          });
        return sendJson(response, 200, {
          created_at: stored.created_at,
          messages: stored.messages.map(({ role, content, sources, status, created_at }) => ({
            role,
            content,
            sources,
            status,
            created_at,
          })),
        });
      }
      if (request.method === 'DELETE' && conversation) {
        const id = decodeURIComponent(conversation[1] ?? '');
        if (!conversations.delete(id))
          return sendJson(response, 404, { error: { code: 'conversation_not_found', message: 'No conversation has this id.' } });
        for (const [shareId, target] of shares) if (target === id) shares.delete(shareId);
        response.writeHead(204);
        response.end();
        return;
      }
      if (request.method === 'POST' && request.url === '/feedback') {
        // As the real server: 201 for a rating stored, 200 for a rating taken back (`rating: null`).
        const feedback = (body ?? {}) as { message_id?: string; rating?: string | null };
        const status = state.feedbackStatus < 400 && feedback.rating === null ? 200 : state.feedbackStatus;
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            status < 400
              ? { message_id: feedback.message_id, rating: feedback.rating, stored: true }
              : { error: { code: 'conversation_store_unavailable', message: 'Conversations cannot be saved right now.' } },
          ),
        );
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    conversations,
    shares,
    get feedbackStatus() {
      return state.feedbackStatus;
    },
    set feedbackStatus(status: number) {
      state.feedbackStatus = status;
    },
    answerChatWith(...scripted) {
      answers = scripted;
    },
    nextDisconnect() {
      return new Promise<void>((resolve) => disconnectWaiters.push(resolve));
    },
    async close() {
      for (const response of openResponses) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
