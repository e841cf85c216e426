/**
 * `docs-chat mcp` as an agent starts it: the SDK's Client with StdioClientTransport spawning the CLI on the
 * fixture docs' index, no language model configured (ask_docs quotes the docs, as the chat does then).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestIndex, type TestIndex } from '../testing/test-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const cli = path.join(root, 'packages/server/src/cli.ts');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

let index: TestIndex;
let client: Client;
let stderr = '';

beforeAll(async () => {
  index = await createTestIndex();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [tsx, cli, 'mcp'],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...index.env, LLM_PROVIDER: 'extractive', DOCS_SITE_URL: 'https://docs.tidewater.example/' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'docs-chat-stdio-test', version: '1.0.0' });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await index?.remove();
});

const textOf = (result: CallToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe('docs-chat mcp (stdio)', () => {
  it('lists the three docs tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_docs', 'read_page', 'ask_docs']);
  });

  it('searches the index and links to the site given by DOCS_SITE_URL', async () => {
    const result = (await client.callTool({
      name: 'search_docs',
      arguments: { query: 'persist the state across page reloads', k: 2 },
    })) as CallToolResult;
    const structured = result.structuredContent as { results: { url: string }[] };
    expect(structured.results).toHaveLength(2);
    expect(structured.results[0]?.url).toBe('https://docs.tidewater.example/docs/guides/configuring-the-harbor#persisting-the-state');
  });

  it('reads a page as markdown with its anchors', async () => {
    const result = (await client.callTool({
      name: 'read_page',
      arguments: { page: '/docs/guides/configuring-the-harbor#options' },
    })) as CallToolResult;
    expect(textOf(result)).toContain('## Persisting the state {#persisting-the-state}');
  });

  it('answers through the chat pipeline with citations, and says "not in the docs" when they do not cover it', async () => {
    const answered = (await client.callTool(
      { name: 'ask_docs', arguments: { question: 'How do I keep the state across page reloads?' } },
      undefined,
      { timeout: 60_000 },
    )) as CallToolResult;
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toMatchObject({ in_docs: true });
    expect(textOf(answered)).toMatch(/localStorage/);
    expect(textOf(answered)).toMatch(/Sources:\n\[1\] .*https:\/\/docs\.tidewater\.example\/docs\//);
    const refused = (await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'What is the best recipe for sourdough bread with rye flour?' },
    })) as CallToolResult;
    expect(refused.structuredContent).toMatchObject({ in_docs: false, finish_reason: 'no_answer' });
  }, 90_000);

  it('answers an unknown tool and bad arguments with JSON-RPC errors, and keeps stdout for the protocol', async () => {
    await expect(client.callTool({ name: 'rm_rf', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const error = await client
      .callTool({ name: 'read_page', arguments: { page: '../../../etc/passwd' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    // A log line on stdout would have broken the connection long before this test; stderr holds no stack trace.
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
