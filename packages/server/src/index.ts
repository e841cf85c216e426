/** Public API of @docs-chat/server: the app, its start-up and the `serve` command. */
export { buildApp, type AppDependencies, type OpenRetrieval } from './app.js';
export { loadConfig, loadServerSettings, loadDotEnvFile, DEFAULT_SERVER_SETTINGS, type ServerConfig, type ServerSettings, type LlmSettings } from './config.js';
export { startServer, type RunningServer, type StartOptions } from './server-runtime.js';
export { runServeCommand } from './serve-command.js';
export { ChatService, type ChatStart, type ChatMetrics, ServerShutdownError } from './chat/chat-service.js';
export { ConversationGateway } from './chat/conversation-gateway.js';
export { HTTP_ERRORS, HttpError, type HttpErrorCode, type ErrorResponseBody } from './http-errors.js';
export type { HealthReport, LlmCheck } from './health/health-check.js';
export { withRetrievalCache } from './retrieval-cache.js';
export { classifyQuestion, type QuestionIntent } from './llm/extractive/question-intent.js';
export { citedNumbers } from './chat/cited-sources.js';
