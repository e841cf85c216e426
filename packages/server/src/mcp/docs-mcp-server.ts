/**
 * The MCP server of the docs: three tools over the same index as `/search`
 * and `/chat`, the same for both transports (Streamable HTTP at `POST /mcp`,
 * stdio through `docs-chat mcp`).
 *
 * Built on the SDK's low-level `Server` rather than `McpServer`: McpServer
 * (SDK 1.32) answers an unknown tool or arguments that fail the schema with a
 * successful result flagged `isError`, where the MCP specification (2025-06-18,
 * tools, "Error Handling") lists both as protocol errors. Here they are JSON-RPC
 * errors -32602 that say what to send instead; failures while running a tool
 * (index unreachable, model down, no such page) are results with `isError`, as
 * the specification asks, so the agent can read them and adapt.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, SCOPE_VALUE } from '@docs-chat/core/protocol';
import type { RetrievalHandle } from '../chat/chat-service.js';
import { describeError, type ServerLogger } from '../chat/conversation-gateway.js';
import type { RequestedScope, SearchResponse } from '../core-api.js';
import { isDocsChatError } from '../core-api.js';
import { citedNumbers } from '../chat/cited-sources.js';
import type { AskDocs } from './ask-docs.js';
import { PageCatalogues, PageReferenceError, parsePageReference, renderPageMarkdown, type PageSource } from './indexed-pages.js';

export const MCP_SERVER_NAME = 'docs-chat';
export const MAX_SEARCH_K = 20;
const DEFAULT_SEARCH_K = 5;

/** Where the index lives; the admin ingest may swap the retriever and the store. */
export interface McpRetrieval extends RetrievalHandle {
  store: PageSource;
}

export interface DocsMcpDependencies {
  retrieval: McpRetrieval;
  ask: AskDocs;
  /** The docs site's public address (DOCS_SITE_URL): links become absolute and read_page accepts its URLs. */
  siteUrl: string | undefined;
  logger: ServerLogger;
  version: string;
  /** The page catalogues, shared across requests. */
  pages: PageCatalogues;
  /** Aborts the tools' work when the client goes away (HTTP) or the process stops. */
  signal?: AbortSignal;
}

const scopeValue = z
  .string()
  .regex(SCOPE_VALUE, 'must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters)');
const scopeFields = {
  version: scopeValue
    .optional()
    .describe('Docs version to search, as the site names it ("current", "2.0"). Default: the latest released version.'),
  locale: scopeValue.optional().describe('Locale of the pages ("en", "fr"). Default: the site\'s default locale.'),
  docs_instance: scopeValue.optional().describe('Docs plugin instance id when the site has several docs sections. Default: "default".'),
};
const questionText = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(MAX_MESSAGE_CHARS, `${what} must be at most ${MAX_MESSAGE_CHARS} characters: shorten it to its essentials`);

const searchInput = z.strictObject({
  query: questionText('query').describe('What to look for, in a few words or a question.'),
  k: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_K)
    .optional()
    .describe(`Number of sections wanted, 1 to ${MAX_SEARCH_K} (default ${DEFAULT_SEARCH_K}).`),
  ...scopeFields,
});
const readInput = z.strictObject({
  page: z
    .string()
    .min(1, 'page must not be empty')
    .max(2048, 'page must be at most 2048 characters')
    .describe("The page's URL or URL path (e.g. /docs/intro, with or without #anchor) or its file path, as search_docs returns them."),
});
const askInput = z.strictObject({
  question: questionText('question').describe('The question, in plain words, as a reader would ask it.'),
  ...scopeFields,
});

const TOOLS = [
  {
    name: 'search_docs',
    title: 'Search the docs',
    description:
      'Search this documentation and return the best matching sections, ranked, each with its title, heading path, URL (with the heading anchor) and text. ' +
      'Use it first for any question about this product: to find facts, API names, configuration options or the right page. ' +
      'Cheap and fast; call it several times with different words rather than guessing. ' +
      'When the result says nothing matched, the docs do not cover the topic: say so instead of inventing an answer.',
    schema: searchInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'read_page',
    title: 'Read a docs page',
    description:
      'Return one whole page of this documentation as markdown, with its headings and their anchors ({#anchor}). ' +
      'Use it after search_docs when a section is not enough: to read a guide end to end, follow a procedure, or quote exact text. ' +
      'Takes the page URL or file path exactly as search_docs returned it; only pages of the indexed docs can be read.',
    schema: readInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'ask_docs',
    title: 'Ask the docs',
    description:
      'Ask a question and get a written answer grounded in this documentation, with numbered citations [n] and their URLs. ' +
      'Use it for a direct answer to a how-to or conceptual question when you do not need to read the sources yourself; it is slower than search_docs (it calls a language model). ' +
      'If the docs do not cover the question it answers that they do not (finish_reason "no_answer") rather than guessing: trust that and do not answer from elsewhere as if it were documented.',
    schema: askInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
] as const;

type ToolName = (typeof TOOLS)[number]['name'];

/** The tool list as tools/list returns it (JSON Schema from the same zod schemas that validate the calls). */
export const TOOL_DEFINITIONS = TOOLS.map((tool) => {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchema as { type: 'object' },
    annotations: tool.annotations,
  };
});

/**
 * One JSON Schema validator for every server. The SDK's Server builds its own Ajv instance when given none,
 * which cost about 0.8 ms of CPU per POST /mcp (over half of what the MCP layer added to a search_docs call,
 * CPU profile of eval/src/bench-mcp.ts's in-process path); this server never validates with it anyway (it
 * serves elicitation forms, which these tools do not send).
 */
const SHARED_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** One MCP server with the docs tools; a new one per HTTP request (stateless) or one for a stdio session. */
export function createDocsMcpServer(deps: DocsMcpDependencies): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: deps.version },
    {
      jsonSchemaValidator: SHARED_SCHEMA_VALIDATOR,
      capabilities: { tools: {} },
      instructions:
        "Tools over this product's documentation. Start with search_docs; read_page for a whole page; ask_docs for a cited answer. " +
        'Cite the URLs you used. When the tools say the docs do not cover something, tell the user so.',
    },
  );
  const absolute = absoluteUrlFor(deps.siteUrl);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_DEFINITIONS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}": this server has ${TOOLS.map((entry) => entry.name).join(', ')}.`,
      );
    }
    const parsed = tool.schema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`,
      );
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${problems.join('; ')}.`, { problems });
    }
    const signal = deps.signal ? AbortSignal.any([deps.signal, extra.signal]) : extra.signal;
    const name: ToolName = tool.name;
    switch (name) {
      case 'search_docs':
        return searchDocs(deps, parsed.data as z.infer<typeof searchInput>, signal, absolute);
      case 'read_page':
        return readPage(deps, parsed.data as z.infer<typeof readInput>, signal, absolute);
      case 'ask_docs':
        return askDocs(deps, parsed.data as z.infer<typeof askInput>, signal, absolute);
    }
  });
  return server;
}

function absoluteUrlFor(siteUrl: string | undefined): (url: string) => string {
  if (!siteUrl) return (url) => url;
  const base = siteUrl.replace(/\/+$/, '');
  return (url) => (url.startsWith('/') ? `${base}${url}` : url);
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function requestedScope(input: {
  version?: string | undefined;
  locale?: string | undefined;
  docs_instance?: string | undefined;
}): RequestedScope {
  return {
    ...(input.version !== undefined ? { version: input.version } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.docs_instance !== undefined ? { instance: input.docs_instance } : {}),
  };
}

async function searchDocs(
  deps: DocsMcpDependencies,
  input: z.infer<typeof searchInput>,
  signal: AbortSignal,
  absolute: (url: string) => string,
): Promise<CallToolResult> {
  let response: SearchResponse;
  try {
    response = await deps.retrieval.retriever.search(input.query, { k: input.k ?? DEFAULT_SEARCH_K, signal, scope: requestedScope(input) });
  } catch (error) {
    if (isDocsChatError(error) && error.code === 'query_invalid') {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for search_docs: ${error.message}${error.hint ? ` ${error.hint}` : ''}`,
      );
    }
    if (isDocsChatError(error) && error.code === 'service_busy')
      return toolError('The docs search is busy right now; try again in a few seconds.');
    deps.logger.error({ err: describeError(error) }, 'MCP search_docs failed');
    return toolError('The documentation index cannot be searched right now; try again shortly.');
  }
  const results = response.hits.map((hit) => ({
    rank: hit.rank,
    score: hit.score,
    title: hit.chunk.title,
    heading_path: hit.chunk.headingPath,
    url: hit.chunk.url ? absolute(hit.chunk.url) : '',
    file: hit.chunk.file,
    text: hit.chunk.text,
    ...(hit.chunk.version !== undefined ? { version: hit.chunk.version } : {}),
    ...(hit.chunk.locale !== undefined ? { locale: hit.chunk.locale } : {}),
  }));
  const lines: string[] = [];
  const scope = response.scope;
  if (scope)
    lines.push(
      `Searched version ${scope.versionLabel}, locale ${scope.locale}.${scope.ignored.length > 0 ? ` Note: ${scope.ignored.join('; ')}.` : ''}`,
    );
  if (response.outOfScope || results.length === 0) {
    lines.push(
      results.length === 0
        ? 'Nothing in the docs matched this query.'
        : 'The docs do not seem to cover this query (the closest sections follow, but they are unlikely to answer it).',
    );
  }
  for (const result of results) {
    lines.push(
      '',
      `${result.rank}. ${result.heading_path.join(' › ')}`,
      `   URL: ${result.url || `(record ${result.file})`}`,
      `   File: ${result.file}`,
      '',
      result.text.trim(),
    );
  }
  return {
    content: [{ type: 'text', text: lines.join('\n').trim() }],
    structuredContent: {
      query: input.query,
      out_of_scope: response.outOfScope,
      confidence: response.confidence,
      results,
      ...(scope
        ? { scope: { version: scope.version, version_label: scope.versionLabel, locale: scope.locale, ignored: scope.ignored } }
        : {}),
    },
  };
}

async function readPage(
  deps: DocsMcpDependencies,
  input: z.infer<typeof readInput>,
  signal: AbortSignal,
  absolute: (url: string) => string,
): Promise<CallToolResult> {
  let reference;
  try {
    reference = parsePageReference(input.page, deps.siteUrl);
  } catch (error) {
    if (error instanceof PageReferenceError)
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for read_page: ${error.message}`);
    throw error;
  }
  try {
    let catalogue = await deps.pages.get(deps.retrieval.store, signal);
    let page = catalogue.find(reference);
    let chunks = page ? await catalogue.chunksOf(page, signal) : [];
    if (!page || chunks.length === 0) {
      // Not in the catalogue, or gone from the index: the index may have changed since the catalogue was read.
      catalogue = await deps.pages.get(deps.retrieval.store, signal, true);
      page = catalogue.find(reference);
      chunks = page ? await catalogue.chunksOf(page, signal) : [];
    }
    if (!page || chunks.length === 0) {
      const similar = catalogue.similar(reference);
      const hint =
        similar.length > 0 ? ` Pages with a similar name: ${similar.map((entry) => absolute(entry.url) || entry.file).join(', ')}.` : '';
      return toolError(
        `No page "${input.page}" in the indexed docs.${hint} Use search_docs to find the page and pass its URL or file exactly as returned.`,
      );
    }
    const markdown = renderPageMarkdown(page, chunks, absolute);
    return {
      content: [{ type: 'text', text: markdown }],
      structuredContent: { title: page.title, url: absolute(page.url), file: page.file, markdown },
    };
  } catch (error) {
    deps.logger.error({ err: describeError(error) }, 'MCP read_page failed');
    return toolError('The documentation index cannot be read right now; try again shortly.');
  }
}

async function askDocs(
  deps: DocsMcpDependencies,
  input: z.infer<typeof askInput>,
  signal: AbortSignal,
  absolute: (url: string) => string,
): Promise<CallToolResult> {
  const scope = {
    ...(input.version !== undefined ? { version: input.version } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.docs_instance !== undefined ? { docs_instance: input.docs_instance } : {}),
  };
  let result;
  try {
    result = await deps.ask(input.question, scope, signal);
  } catch (error) {
    deps.logger.error({ err: describeError(error) }, 'MCP ask_docs failed');
    return toolError('The question could not be answered right now; try again shortly, or use search_docs.');
  }
  if (result.error)
    return toolError(
      `${result.error.message}${result.error.retryable ? ' (Trying again later may work; search_docs still works meanwhile.)' : ''}`,
    );
  const inDocs = result.finishReason !== 'no_answer';
  // The chat sends the cited sources in order of first citation (as the widget pairs them): give each its [n] back.
  const cited = citedNumbers(result.answer);
  const sources = result.sources.map((source, index) => ({
    number: cited.length === result.sources.length ? (cited[index] as number) : index + 1,
    title: source.heading_path.length > 0 ? source.heading_path.join(' › ') : source.title,
    url: source.url ? absolute(source.url) : '',
    file: source.file,
  }));
  const text = [
    inDocs ? result.answer.trim() : `Not in the docs: ${result.answer.trim()}`,
    ...result.warnings.map((warning) => `Note: ${warning}`),
    ...(sources.length > 0
      ? ['', 'Sources:', ...sources.map((source) => `[${source.number}] ${source.title} — ${source.url || source.file}`)]
      : []),
  ].join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: { answer: result.answer, in_docs: inDocs, finish_reason: result.finishReason, sources, warnings: result.warnings },
  };
}
