/**
 * POST /mcp through the SDK's own client (Client + StreamableHTTPClientTransport) against the real server
 * listening on 127.0.0.1, over the fixture docs, with the Gemini stand-in as the model.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestIndex, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';

const SETUP_TIMEOUT_MS = 120_000;
const SITE = 'https://docs.tidewater.example';
const TOKEN = 'mcp-token-0123456789abcdef';

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  server = await startTestServer({ index, env: { DOCS_SITE_URL: SITE } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'docs-chat-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<McpError> {
  try {
    await client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`${name} did not fail`);
}

function rpc(method: string, params: Record<string, unknown>, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

function generateRequests() {
  return server.gemini.requests.filter((request) => request.path.toLowerCase().includes('generatecontent'));
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('POST /mcp with the SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(server.url);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists search_docs, read_page and ask_docs, each telling an agent when to use it', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_docs', 'read_page', 'ask_docs']);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.search_docs?.description).toMatch(/Use it first/);
    expect(byName.read_page?.description).toMatch(/after search_docs/);
    expect(byName.ask_docs?.description).toMatch(/do not cover/);
    expect(byName.search_docs?.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
    expect(Object.keys(byName.search_docs?.inputSchema.properties ?? {})).toEqual(['query', 'k', 'version', 'locale', 'docs_instance']);
    expect(client.getServerVersion()).toMatchObject({ name: 'docs-chat' });
  });

  it('search_docs returns the same ranked sections as GET /search, with absolute URLs on DOCS_SITE_URL', async () => {
    const question = 'persist the state across page reloads';
    const result = (await client.callTool({ name: 'search_docs', arguments: { query: question, k: 3 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      results: { rank: number; url: string; file: string; text: string }[];
      out_of_scope: boolean;
    };
    const http = (await (await fetch(`${server.url}/search?q=${encodeURIComponent(question)}&k=3`)).json()) as {
      results: { url: string }[];
    };
    expect(structured.results.map((entry) => entry.url)).toEqual(http.results.map((entry) => `${SITE}${entry.url}`));
    expect(structured.results[0]).toMatchObject({
      rank: 1,
      file: 'guides/configuring-the-harbor.md',
      url: `${SITE}/docs/guides/configuring-the-harbor#persisting-the-state`,
    });
    expect(structured.results[0]?.text).toMatch(/localStorage/);
    expect(structured.out_of_scope).toBe(false);
    expect(textOf(result)).toContain(`URL: ${SITE}/docs/guides/configuring-the-harbor#persisting-the-state`);
  });

  it('search_docs says when the docs do not cover the query', async () => {
    const result = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'best recipe for sourdough bread with rye flour' },
    })) as CallToolResult;
    expect((result.structuredContent as { out_of_scope: boolean }).out_of_scope).toBe(true);
    expect(textOf(result)).toMatch(/do not seem to cover this query/);
  });

  it('read_page returns a whole page as markdown with its heading anchors, by URL, URL path or file', async () => {
    const byUrl = (await client.callTool({
      name: 'read_page',
      arguments: { page: `${SITE}/docs/guides/configuring-the-harbor#options` },
    })) as CallToolResult;
    expect(byUrl.isError).toBeFalsy();
    const markdown = textOf(byUrl);
    expect(markdown).toMatch(/^# Configuring the harbor\n/);
    expect(markdown).toContain(`Source: ${SITE}/docs/guides/configuring-the-harbor`);
    expect(markdown).toContain('## Options {#options}');
    expect(markdown).toContain('## Persisting the state {#persisting-the-state}');
    expect(markdown).toContain("import { openHarbor } from 'tidewater';");
    // Sections in page order.
    expect(markdown.indexOf('{#options}')).toBeLessThan(markdown.indexOf('{#persisting-the-state}'));
    const byPath = (await client.callTool({
      name: 'read_page',
      arguments: { page: '/docs/guides/configuring-the-harbor/' },
    })) as CallToolResult;
    const byFile = (await client.callTool({
      name: 'read_page',
      arguments: { page: 'guides/configuring-the-harbor.md' },
    })) as CallToolResult;
    expect(textOf(byPath)).toBe(markdown);
    expect(textOf(byFile)).toBe(markdown);
  });

  it('read_page reports a page the index does not hold as a tool error pointing to search_docs', async () => {
    const result = (await client.callTool({ name: 'read_page', arguments: { page: '/docs/guides/configuring' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/No page .* in the indexed docs.*configuring-the-harbor.*search_docs/s);
    const system = (await client.callTool({ name: 'read_page', arguments: { page: '/etc/passwd' } })) as CallToolResult;
    expect(system.isError).toBe(true);
    expect(textOf(system)).not.toMatch(/root:/);
  });

  it.each([
    ['a parent folder', '../../../../etc/passwd', /".."/],
    ['a parent folder inside a URL path', '/docs/../../etc/passwd', /".."/],
    ['an encoded parent folder', '/docs/%2e%2e/%2e%2e/etc/passwd', /".."/],
    ['an absolute Windows path', 'C:\\Windows\\win.ini', /Absolute file paths/],
    ['a file URL', 'file:///etc/passwd', /Only http\(s\) URLs/],
    ['a URL of another host', 'https://evil.example/docs/intro', /another site/],
  ])('read_page refuses %s with a JSON-RPC invalid-params error', async (_case, page, message) => {
    const error = await callError(client, 'read_page', { page });
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(message);
  });

  it('ask_docs answers through the chat pipeline with numbered citations and their URLs', async () => {
    server.gemini.reset();
    const result = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'How do I keep the state across page reloads?' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      answer: string;
      in_docs: boolean;
      finish_reason: string;
      sources: { number: number; url: string }[];
    };
    expect(structured.in_docs).toBe(true);
    expect(structured.finish_reason).toBe('stop');
    expect(structured.answer).toMatch(/\[1\]/);
    expect(structured.sources.length).toBeGreaterThan(0);
    expect(structured.sources.map((source) => source.number)).toContain(1);
    expect(structured.sources.map((source) => source.url)).toContain(`${SITE}/docs/guides/configuring-the-harbor#persisting-the-state`);
    expect(textOf(result)).toMatch(/Sources:\n\[1\] .+ — https:\/\/docs\.tidewater\.example\//);
    expect(generateRequests()).not.toHaveLength(0);
  });

  it('ask_docs says "not in the docs" for a question the docs do not cover, without calling the model', async () => {
    server.gemini.reset();
    const result = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'What is the best recipe for sourdough bread with rye flour?' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ in_docs: false, finish_reason: 'no_answer', sources: [] });
    expect(textOf(result)).toMatch(/^Not in the docs: /);
    expect(generateRequests()).toHaveLength(0);
  });

  it('answers an unknown tool with JSON-RPC error -32602 naming the tools', async () => {
    const error = await callError(client, 'delete_docs', {});
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/Unknown tool "delete_docs".*search_docs, read_page, ask_docs/);
  });

  it.each([
    ['a missing query', { k: 3 }, /query: /],
    ['k out of range', { query: 'harbor', k: 0 }, /k: /],
    ['k that is not a number', { query: 'harbor', k: 'five' }, /k: /],
    ['an unknown argument', { query: 'harbor', page: 2 }, /page/],
    ['a version that is not a name', { query: 'harbor', version: '../2.0' }, /version: must be a name/],
    ['a query over 4,000 characters', { query: 'harbor '.repeat(600) }, /query: query must be at most 4000 characters/],
  ])('answers search_docs with %s with JSON-RPC error -32602 that says what to send', async (_case, args, message) => {
    const error = await callError(client, 'search_docs', args);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/Invalid arguments for search_docs/);
    expect(error.message).toMatch(message);
  });

  it('refuses an ask_docs question over 4,000 characters before any model call', async () => {
    server.gemini.reset();
    const error = await callError(client, 'ask_docs', { question: 'x'.repeat(4001) });
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(generateRequests()).toHaveLength(0);
  });
});

describe('POST /mcp over raw HTTP', () => {
  it('is stateless: no session id is issued, and a call works without initialize or with a stale session id', async () => {
    const initialize = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    const call = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'expired-session-from-yesterday' },
      body: rpc('tools/call', { name: 'search_docs', arguments: { query: 'harbor' } }, 2),
    });
    expect(call.status).toBe(200);
    const body = (await call.json()) as { id: number; result: { structuredContent: { results: unknown[] } } };
    expect(body.id).toBe(2);
    expect(body.result.structuredContent.results.length).toBeGreaterThan(0);
  });

  it('answers a body that is not JSON with JSON-RPC parse error -32700', async () => {
    const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "id": 1, ' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('answers a message that is not JSON-RPC with an error, not a crash', async () => {
    const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ hello: 'world' }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('answers GET and DELETE with 405 and a JSON-RPC error (no server-initiated stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/stateless/) } });
    }
  });

  it('lets an allowed origin call it from a browser and refuses others, as /search does', async () => {
    const preflight = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/);
    const refused = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'https://elsewhere.example' },
      body: rpc('tools/list', {}),
    });
    expect(refused.status).toBe(403);
  });
});

describe('POST /mcp limits and token', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ index, env: { RATE_LIMIT_MAX: '2', MCP_TOKEN: TOKEN } });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await limited?.close();
  });

  it('refuses a call without the MCP_TOKEN bearer token with 401 and a JSON-RPC error that names the fix', async () => {
    const response = await fetch(`${limited.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: rpc('tools/list', {}) });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/MCP_TOKEN/) } });
    await expect(connect(limited.url, { authorization: 'Bearer wrong-token-wrong-token' })).rejects.toThrow();
  });

  const authorised = { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` };

  it('counts ask_docs calls against the chat budget (RATE_LIMIT_MAX), and says search_docs still works', async () => {
    const statuses: number[] = [];
    let refusal: { error?: { message: string } } = {};
    for (let call = 0; call < 3; call += 1) {
      const response = await fetch(`${limited.url}/mcp`, {
        method: 'POST',
        headers: authorised,
        body: rpc('tools/call', { name: 'ask_docs', arguments: { question: 'How do I open the harbor?' } }, call),
      });
      statuses.push(response.status);
      if (response.status === 429) refusal = (await response.json()) as typeof refusal;
      else await response.text();
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(refusal.error?.message).toMatch(/Too many ask_docs calls.*search_docs/);
  });

  it('rate-limits a burst of calls per address like /search (three times the chat budget), with retry-after, and the SDK client sees the refusal', async () => {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let call = 0; call < 7; call += 1) {
      const response = await fetch(`${limited.url}/mcp`, {
        method: 'POST',
        headers: authorised,
        body: rpc('tools/call', { name: 'search_docs', arguments: { query: `harbor ${call}` } }, call),
      });
      statuses.push(response.status);
      if (response.status === 429) refused ??= response;
      else await response.text();
    }
    // Six calls per window (RATE_LIMIT_MAX=2, times three), three already spent by the ask_docs test.
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429]);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused?.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/Too many requests/) },
    });
    await expect(connect(limited.url, { authorization: `Bearer ${TOKEN}` })).rejects.toThrow(/429|Too many requests/);
  });
});
