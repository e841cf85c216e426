/**
 * `docs-chat mcp`: the docs' MCP server over stdio, for agents on the same
 * machine (Claude Desktop, VS Code, Cursor start it as a subprocess). Same
 * tools and index as `POST /mcp`. stdout carries only the protocol, so logs go
 * to stderr. ask_docs opens the chat model and an in-memory conversation
 * store on first use (a few seconds, once; opening them at start would stall
 * the searches of those seconds, PGlite's start-up holding the thread): the agent's questions are answered as on /chat but not
 * kept (and no lock is taken on DATA_DIR's conversations, so a running
 * `docs-chat serve` is not disturbed).
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ChatService } from '../chat/chat-service.js';
import { ConversationGateway } from '../chat/conversation-gateway.js';
import { loadConfig, loadDotEnvFile } from '../config.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import { assembleContext, countTokens, openRetrieval } from '../core-api.js';
import { createChatModel } from '../llm/create-chat-model.js';
import { createLogger } from '../logging.js';
import { createAskDocs } from '../mcp/ask-docs.js';
import { createDocsMcpServer } from '../mcp/docs-mcp-server.js';
import { PageCatalogues } from '../mcp/indexed-pages.js';
import { DOCS_CHAT_VERSION } from '../mcp/server-version.js';
import { withRetrievalCache } from '../retrieval-cache.js';
import { startupFailure } from '../serve-command.js';

const USAGE = `Usage: docs-chat mcp

Serves the docs to an AI agent over MCP on stdin/stdout (tools search_docs, read_page,
ask_docs). Start it from the agent's MCP configuration, in the folder that holds .env.
Settings come from the environment or .env (DATA_DIR, the embedder, LLM_PROVIDER, ...);
logs go to stderr (LOG_LEVEL, default warn here).`;

export async function runMcpCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const effective = { ...env };
  loadDotEnvFile(undefined, effective);
  // Agents show the server's stderr in their logs: keep it to warnings unless asked.
  effective.LOG_LEVEL ??= 'warn';

  let config;
  let retrieval;
  try {
    config = loadConfig(effective);
    retrieval = await openRetrieval(config.core);
  } catch (error) {
    process.stderr.write(`docs-chat mcp: ${startupFailure(error)}\n`);
    return 1;
  }
  const logger = createLogger(config.server.logLevel, { write: (line) => void process.stderr.write(line) });
  const serverConfig = config.server;

  let store: ConversationStore | undefined;
  let chat: Promise<ChatService> | undefined;
  const openChat = async (): Promise<ChatService> => {
    const chatModel = createChatModel({
      provider: serverConfig.llm.provider,
      model: serverConfig.llm.model,
      ...(serverConfig.llm.apiKey ? { apiKey: serverConfig.llm.apiKey } : {}),
      ...(serverConfig.llm.baseUrl ? { baseUrl: serverConfig.llm.baseUrl } : {}),
      timeoutMs: serverConfig.llm.timeoutMs,
    });
    store = await createConversationStore({ dataDir: ':memory:' });
    const conversations = new ConversationGateway(store, logger);
    await conversations.migrate();
    return new ChatService({ retrieval: handle, assembleContext, countTokens, chatModel, conversations });
  };
  const handle = { retriever: withRetrievalCache(retrieval.retriever, serverConfig.retrievalCache), store: retrieval.store };

  const getChat = (): Promise<ChatService> =>
    (chat ??= openChat().catch((error: unknown) => {
      chat = undefined;
      throw error;
    }));

  const stopping = new AbortController();
  const server = createDocsMcpServer({
    retrieval: handle,
    ask: createAskDocs(getChat, logger),
    siteUrl: serverConfig.mcp.siteUrl,
    logger,
    version: DOCS_CHAT_VERSION,
    pages: new PageCatalogues(),
    signal: stopping.signal,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  logger.info({ vectorStore: retrieval.store.backend }, 'docs-chat MCP server ready on stdio');
  await closed;
  stopping.abort();
  await server.close().catch(() => undefined);
  await retrieval.close().catch(() => undefined);
  await store?.close().catch(() => undefined);
  return 0;
}
