/**
 * `POST /mcp`: the docs' MCP server over Streamable HTTP, stateless. Each POST
 * gets a fresh MCP server and transport and stands alone: no `Mcp-Session-Id`
 * is issued or checked, so any replica behind a load balancer can answer it
 * (the MCP specification lets a server work without sessions). `GET /mcp`
 * (a stream for server-initiated messages, which this server never sends)
 * and `DELETE /mcp` (ending a session) answer 405, as the specification allows.
 *
 * The SDK's web-standard transport answers in JSON (`enableJsonResponse`), and
 * the reply goes out through Fastify, so CORS, the request id and the rate limit
 * apply as on `/search`. Every error of this route, the rate limit and the token
 * check included, is a JSON-RPC error object, as MCP clients expect.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatService } from '../chat/chat-service.js';
import { describeError } from '../chat/conversation-gateway.js';
import { toHttpError } from '../http-errors.js';
import { createAskDocs } from '../mcp/ask-docs.js';
import type { McpRetrieval } from '../mcp/docs-mcp-server.js';
import { PageCatalogues } from '../mcp/indexed-pages.js';
import { DOCS_CHAT_VERSION } from '../mcp/server-version.js';
import { clientDisconnectSignal } from './client-disconnect.js';

export interface McpRoutesOptions {
  retrieval: McpRetrieval;
  chat: ChatService;
  /** Bearer token asked of every call (MCP_TOKEN); open when absent. */
  token: string | undefined;
  siteUrl: string | undefined;
  rateLimit: { max: number; windowMs: number };
}

/** JSON-RPC's generic server error, which the SDK also uses for transport-level refusals. */
const TRANSPORT_ERROR = -32000;
const PARSE_ERROR = -32700;

/**
 * The MCP SDK, with zod and ajv, loads with the first MCP request instead of with the server: most servers never get
 * one, and it is the largest thing they would load (14 MB resident; issue 16 budget of 300 MB per server process).
 */
let mcpModules:
  | Promise<[typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), typeof import('../mcp/docs-mcp-server.js')]>
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../mcp/docs-mcp-server.js'),
  ]));

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  const { retrieval, chat, token, siteUrl, rateLimit } = options;
  const pages = new PageCatalogues();
  const expected = token === undefined ? undefined : digest(token);
  // ask_docs spends a model call like POST /chat: it also counts against the chat's budget (its own counter).
  const askLimit = app.createRateLimit({
    max: rateLimit.max,
    timeWindow: rateLimit.windowMs,
    keyGenerator: (request) => `mcp-ask:${request.ip}`,
  });

  // Scoped to this plugin: body, auth and rate-limit failures come back as JSON-RPC errors.
  app.setErrorHandler((error, request, reply) => {
    const httpError = toHttpError(error);
    if (httpError.code === 'internal_error') request.log.error({ err: describeError(error) }, 'MCP request failed');
    if (httpError.retryAfterSeconds !== undefined) reply.header('retry-after', String(httpError.retryAfterSeconds));
    const code = httpError.code === 'invalid_json' ? PARSE_ERROR : TRANSPORT_ERROR;
    return jsonRpcError(reply, httpError.statusCode, code, httpError.message);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (expected === undefined) return;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1] ?? ''), expected)) {
      reply.header('www-authenticate', 'Bearer realm="docs-chat"');
      return jsonRpcError(
        reply,
        401,
        TRANSPORT_ERROR,
        'Send "Authorization: Bearer <MCP_TOKEN>" with the token configured on the docs-chat server (add it to the headers of your MCP client configuration).',
      );
    }
  });

  const routeConfig = { config: { rateLimit: { max: rateLimit.max * 3, timeWindow: rateLimit.windowMs } } };

  app.post('/mcp', routeConfig, async (request, reply) => {
    if (callsTool(request.body, 'ask_docs')) {
      const verdict = await askLimit(request);
      // isAllowed means "on the allow list"; isExceeded is the verdict.
      if (!verdict.isAllowed && verdict.isExceeded) {
        reply.header('retry-after', String(verdict.ttlInSeconds));
        return jsonRpcError(
          reply,
          429,
          TRANSPORT_ERROR,
          `Too many ask_docs calls from your address (limit ${verdict.max} per window, as for the chat); wait ${verdict.ttlInSeconds} s, or use search_docs meanwhile.`,
        );
      }
    }
    const signal = clientDisconnectSignal(reply);
    const [{ WebStandardStreamableHTTPServerTransport }, { createDocsMcpServer }] = await loadMcp();
    const server = createDocsMcpServer({
      retrieval,
      ask: createAskDocs(async () => chat, request.log),
      siteUrl,
      logger: request.log,
      version: DOCS_CHAT_VERSION,
      pages,
      signal,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(toWebRequest(request), { parsedBody: request.body });
      return await sendWebResponse(reply, response);
    } finally {
      await server.close().catch(() => undefined);
    }
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    jsonRpcError(
      reply.header('allow', 'POST'),
      405,
      TRANSPORT_ERROR,
      'This MCP server is stateless: send every JSON-RPC message with POST /mcp (no event stream, no session to end).',
    );
  app.get('/mcp', routeConfig, notAllowed);
  app.delete('/mcp', routeConfig, notAllowed);
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** True when the body (one message or a batch) calls this tool. */
function callsTool(body: unknown, name: string): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (typeof message !== 'object' || message === null) return false;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && params?.name === name;
  });
}

/** The parts of the request the transport reads: method, headers (Accept, content type, protocol version). */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const body = await response.text();
  return reply.send(body.length > 0 ? body : undefined);
}
