/** Public API of @docs-chat/server: the app, its start-up, the `serve` command and the MCP server of the docs. */
export { buildApp, type AppDependencies, type OpenRetrieval } from './app.js';
export {
  loadConfig,
  loadServerSettings,
  loadDotEnvFile,
  DEFAULT_SERVER_SETTINGS,
  type ServerConfig,
  type ServerSettings,
  type LlmSettings,
} from './config.js';
export { startServer, type RunningServer, type StartOptions } from './server-runtime.js';
export { runServeCommand } from './serve-command.js';
export { ChatService, type ChatStart, type ChatMetrics, ServerShutdownError } from './chat/chat-service.js';
export { ConversationGateway } from './chat/conversation-gateway.js';
export { HTTP_ERRORS, HttpError, type HttpErrorCode, type ErrorResponseBody } from './http-errors.js';
export type { HealthReport, LlmCheck } from './health/health-check.js';
export { withRetrievalCache } from './retrieval-cache.js';
export { classifyQuestion, type QuestionIntent } from './llm/extractive/question-intent.js';
export { citedNumbers } from './chat/cited-sources.js';
export { createDocsMcpServer, TOOL_DEFINITIONS, type DocsMcpDependencies } from './mcp/docs-mcp-server.js';
export { PageCatalogues } from './mcp/indexed-pages.js';
