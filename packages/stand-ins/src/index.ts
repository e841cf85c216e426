export { startGeminiStandIn, geminiError, DEFAULT_GEMINI_MODELS } from './gemini-stand-in.js';
export type {
  GeminiStandIn,
  GeminiStandInOptions,
  GeminiFault,
  GeminiMethod,
  GeminiModelInfo,
  GeminiGenerateRequest,
  GeminiGenerateBody,
} from './gemini-stand-in.js';
export { startOpenAIStandIn, openAIError, DEFAULT_OPENAI_MODELS } from './openai-stand-in.js';
export type {
  OpenAIStandIn,
  OpenAIStandInOptions,
  OpenAIFault,
  OpenAIEndpoint,
  OpenAIChatRequest,
  OpenAIChatBody,
  OpenAIChatMessage,
} from './openai-stand-in.js';
export { deterministicEmbedding } from './deterministic-embedding.js';
export type { RecordedRequest, StreamRecord, StreamOutcome } from './stand-in-server.js';
export { startQdrantStandIn, QDRANT_ERROR_MESSAGES } from './qdrant-stand-in.js';
export type { QdrantStandIn, QdrantStandInOptions, QdrantFailure, RecordedQdrantRequest } from './qdrant-stand-in.js';
