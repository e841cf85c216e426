/**
 * A local server that speaks the Gemini REST + SSE protocol (v1beta), so the
 * real `@google/genai` client runs in tests against it. Point the SDK at
 * `standIn.url` through `httpOptions.baseUrl`; it appends `/v1beta/...`.
 */
import './undici-realm-bridge.js';
import { deterministicEmbedding } from './deterministic-embedding.js';
import { groundedReply, splitIntoPieces } from './grounded-reply.js';
import { approximateTokens, HttpFailure, sendJson, startHttpServer, writeEventStream } from './stand-in-server.js';
import { createStreamControls } from './stream-controls.js';
import type { RecordedRequest, StandInContext, StreamRecord } from './stand-in-server.js';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'embedContent' | 'batchEmbedContents';

export interface GeminiModelInfo {
  /** Bare id, e.g. `gemini-3.8-flash` (served as `models/<id>`). */
  id: string;
  supportedGenerationMethods: string[];
  inputTokenLimit?: number;
  outputTokenLimit?: number;
}

/** What a `respond` hook gets to decide the reply text. */
export interface GeminiGenerateRequest {
  model: string;
  method: 'generateContent' | 'streamGenerateContent';
  /** The request body as sent. */
  body: GeminiGenerateBody;
  /** System instruction and every message's text, joined. */
  promptText: string;
  /** The text of the last `user` message. */
  lastUserText: string;
}

/** A fixed reply, or a hook that decides it per request. */
export type GeminiReply = string | ((request: GeminiGenerateRequest) => string);

export interface GeminiGenerateBody {
  contents?: { role?: string; parts?: { text?: string }[] }[];
  systemInstruction?: { parts?: { text?: string }[] };
  system_instruction?: { parts?: { text?: string }[] };
  generationConfig?: { maxOutputTokens?: number; temperature?: number };
  generation_config?: { max_output_tokens?: number };
}

export interface GeminiFault {
  /** 400, 403, 404, 429, 500, 503, 504, ... */
  status: number;
  /** For 429: adds a `google.rpc.RetryInfo` detail, e.g. `"1s"` or `"0.2s"`. */
  retryDelay?: string;
  message?: string;
  /** How many consecutive requests fail this way (default 1). */
  times?: number;
  /** Only requests of this method fail (default: any POST to a model). */
  method?: GeminiMethod;
}

export interface GeminiStandInOptions {
  /** The only key accepted (default `test-gemini-key`). */
  apiKey?: string;
  models?: GeminiModelInfo[];
  /** Delay before each stream event in milliseconds (default 0). */
  eventDelayMs?: number;
  /** A fixed reply instead of the default grounded one. */
  replyText?: string;
  /** Decides the reply per request; wins over `replyText`. */
  respond?: (request: GeminiGenerateRequest) => string;
  /** Words per stream event (default 3). */
  wordsPerEvent?: number;
}

export interface GeminiStandIn {
  /** Root URL, e.g. `http://127.0.0.1:41234`; give it to the SDK as `httpOptions.baseUrl`. */
  readonly url: string;
  readonly apiKey: string;
  /** Every request received, in order, without credentials. */
  readonly requests: RecordedRequest[];
  /** Every streamed response, in order. */
  readonly streams: StreamRecord[];
  /** The most recent stream, if any. */
  readonly lastStream: StreamRecord | undefined;
  /** Sockets currently open (keep-alive connections count). */
  openConnections(): number;
  /** Queues a failure for the next matching request(s). */
  failNext(fault: GeminiFault): void;
  /** The next stream is destroyed after `events` events, without a proper end. */
  cutStreamAfter(events: number): void;
  /** When true, streams end with an extra event that carries only `finishReason` (no content). */
  lastEventOnlyFinishReason: boolean;
  /** Blocks every prompt with this `promptFeedback.blockReason` until called with `null`. */
  blockPrompt(reason: string | null): void;
  /** Finish reason of answers (default `STOP`); `MAX_TOKENS` is also set on its own when `maxOutputTokens` cuts the reply. */
  setFinishReason(reason: string): void;
  /** When true, answers start with a part marked `thought: true`, as thinking models send. */
  emitThoughts: boolean;
  setDelay(ms: number): void;
  setReply(reply: GeminiReply | undefined): void;
  /** Clears every switch, queued fault and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_GEMINI_MODELS: GeminiModelInfo[] = [
  { id: 'gemini-3.8-flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
  { id: 'gemini-flash-latest', supportedGenerationMethods: ['generateContent', 'countTokens'] },
  { id: 'gemini-flash-lite-latest', supportedGenerationMethods: ['generateContent', 'countTokens'] },
  { id: 'gemini-2.5-flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
  {
    id: 'gemini-embedding-001',
    supportedGenerationMethods: ['embedContent', 'batchEmbedContents', 'countTextTokens'],
    inputTokenLimit: 2048,
    outputTokenLimit: 1,
  },
];

const MAX_EMBED_BATCH = 100;
const DEFAULT_EMBED_DIMENSIONS = 3072;

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  429: 'You exceeded your current quota, please check your plan and billing details.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'The request timed out. Please try again.',
};

/** A Gemini error body, `{"error":{"code","message","status","details"}}`. */
export function geminiError(status: number, message: string, details?: unknown[]): HttpFailure {
  const error: Record<string, unknown> = { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' };
  if (details) error.details = details;
  return new HttpFailure(status, { error });
}

export async function startGeminiStandIn(options: GeminiStandInOptions = {}): Promise<GeminiStandIn> {
  const apiKey = options.apiKey ?? 'test-gemini-key';
  const models = new Map((options.models ?? DEFAULT_GEMINI_MODELS).map((model) => [model.id, model]));
  const wordsPerEvent = options.wordsPerEvent ?? 3;
  const controls = createStreamControls<GeminiFault, GeminiReply>(() => ({
    delayMs: options.eventDelayMs ?? 0,
    reply: options.respond ?? options.replyText,
    finishReason: 'STOP',
  }));
  let blockReason: string | null = null;

  const handle = async (context: StandInContext): Promise<void> => {
    const { request, response, url, recorded } = context;
    const path = recorded.path;
    if (!path.startsWith('/v1beta/')) throw geminiError(404, `Unknown path ${path}.`);
    checkApiKey(request.headers['x-goog-api-key'], url.searchParams.get('key'), apiKey);

    const rest = path.slice('/v1beta/'.length);
    if (request.method === 'GET' && rest === 'models') {
      sendJson(response, 200, { models: [...models.values()].map(describeModel) });
      return;
    }
    const getMatch = /^models\/([^:/]+)$/.exec(rest);
    if (request.method === 'GET' && getMatch) {
      const model = models.get(getMatch[1]!);
      if (!model) throw geminiError(404, `models/${getMatch[1]} is not found for API version v1beta.`);
      sendJson(response, 200, describeModel(model));
      return;
    }
    const postMatch = /^models\/([^:/]+):(\w+)$/.exec(rest);
    if (request.method !== 'POST' || !postMatch) throw geminiError(404, `Unknown path ${path}.`);
    const modelId = postMatch[1]!;
    const method = postMatch[2]! as GeminiMethod;
    const model = models.get(modelId);
    // Models list generateContent; streaming is the same capability.
    const capability = method === 'streamGenerateContent' ? 'generateContent' : method;
    if (!model || !model.supportedGenerationMethods.includes(capability)) {
      throw geminiError(
        404,
        `models/${modelId} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
      );
    }
    takeFault(method);

    const body = (recorded.body ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'embedContent':
        sendJson(response, 200, { embedding: embedOne(body) });
        return;
      case 'batchEmbedContents':
        sendJson(response, 200, { embeddings: embedBatch(modelId, body) });
        return;
      case 'generateContent':
      case 'streamGenerateContent':
        await generate(context, modelId, method, body);
        return;
      default:
        // Unreachable while every model lists known methods only; the path itself can name any method.
        throw geminiError(404, `Method ${method as string} is not supported.`);
    }
  };

  function takeFault(method: GeminiMethod): void {
    const fault = controls.takeFault((queued) => queued.method === undefined || queued.method === method);
    if (!fault) return;
    const message = fault.message ?? DEFAULT_MESSAGES[fault.status] ?? `Forced failure ${fault.status}.`;
    const details =
      fault.status === 429 && fault.retryDelay !== undefined
        ? [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [
                {
                  quotaMetric: 'generativelanguage.googleapis.com/generate_requests_per_model',
                  quotaId: 'GenerateRequestsPerMinutePerProjectPerModel',
                },
              ],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: fault.retryDelay },
          ]
        : undefined;
    throw geminiError(fault.status, message, details);
  }

  async function generate(
    context: StandInContext,
    modelId: string,
    method: 'generateContent' | 'streamGenerateContent',
    body: GeminiGenerateBody,
  ): Promise<void> {
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      throw geminiError(400, '* GenerateContentRequest.contents: contents is not specified');
    }
    const systemInstruction = body.systemInstruction ?? body.system_instruction;
    const systemText = (systemInstruction?.parts ?? []).map((part) => part.text ?? '').join('\n');
    const messageTexts = body.contents.map((content) => (content.parts ?? []).map((part) => part.text ?? '').join(''));
    const promptText = [systemText, ...messageTexts].join('\n');
    const lastUser = [...body.contents].reverse().find((content) => (content.role ?? 'user') === 'user');
    const lastUserText = (lastUser?.parts ?? []).map((part) => part.text ?? '').join('');
    const promptTokenCount = approximateTokens(promptText);
    const responseId = `stand-in-${Math.random().toString(36).slice(2, 10)}`;
    const modelVersion = modelId;

    if (blockReason !== null) {
      const blocked = {
        promptFeedback: { blockReason, safetyRatings: [] },
        usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion,
        responseId,
      };
      if (method === 'generateContent') sendJson(context.response, 200, blocked);
      else await writeEventStream(context, streams, [geminiFrame(blocked)], { delayMs: () => controls.delayMs, cutAfter: undefined });
      return;
    }

    const request: GeminiGenerateRequest = { model: modelId, method, body, promptText, lastUserText };
    const { reply } = controls;
    let text = typeof reply === 'function' ? reply(request) : (reply ?? groundedReply(promptText, lastUserText));
    let finish = controls.finishReason;
    const maxOutputTokens = body.generationConfig?.maxOutputTokens ?? body.generation_config?.max_output_tokens;
    const words = text.match(/\S+\s*/g) ?? [];
    if (maxOutputTokens !== undefined && words.length > maxOutputTokens) {
      text = words.slice(0, maxOutputTokens).join('');
      finish = 'MAX_TOKENS';
    }
    const pieces = splitIntoPieces(text, wordsPerEvent);
    const thoughtPart = { text: 'Let me look at the numbered sources first.', thought: true };

    if (method === 'generateContent') {
      const candidatesTokenCount = approximateTokens(text);
      const parts = state.emitThoughts ? [thoughtPart, { text }] : [{ text }];
      sendJson(context.response, 200, {
        candidates: [{ content: { role: 'model', parts }, finishReason: finish, index: 0 }],
        usageMetadata: usage(promptTokenCount, candidatesTokenCount),
        modelVersion,
        responseId,
      });
      return;
    }

    const events: unknown[] = [];
    let emitted = '';
    pieces.forEach((piece, index) => {
      emitted += piece;
      const isLast = index === pieces.length - 1;
      const parts = index === 0 && state.emitThoughts ? [thoughtPart, { text: piece }] : [{ text: piece }];
      const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
      if (isLast && !state.lastEventOnlyFinishReason) candidate.finishReason = finish;
      events.push({
        candidates: [candidate],
        usageMetadata: usage(promptTokenCount, approximateTokens(emitted)),
        modelVersion,
        responseId,
      });
    });
    if (state.lastEventOnlyFinishReason) {
      events.push({
        candidates: [{ content: { role: 'model' }, finishReason: finish, index: 0 }],
        usageMetadata: usage(promptTokenCount, approximateTokens(emitted)),
        modelVersion,
        responseId,
      });
    }
    await writeEventStream(context, streams, events.map(geminiFrame), { delayMs: () => controls.delayMs, cutAfter: controls.takeCut() });
  }

  function embedOne(body: Record<string, unknown>): { values: number[] } {
    const text = textOf(body.content);
    const dimensions = dimensionsOf(body);
    return { values: deterministicEmbedding(text, dimensions) };
  }

  function embedBatch(modelId: string, body: Record<string, unknown>): { values: number[] }[] {
    const requests = body.requests;
    if (!Array.isArray(requests) || requests.length === 0) {
      throw geminiError(400, '* BatchEmbedContentsRequest.requests: requests is not specified');
    }
    if (requests.length > MAX_EMBED_BATCH) {
      throw geminiError(400, `* BatchEmbedContentsRequest.requests: at most ${MAX_EMBED_BATCH} requests can be in one batch`);
    }
    return requests.map((item: Record<string, unknown>, index) => {
      if (item.model !== undefined && item.model !== `models/${modelId}`) {
        throw geminiError(
          400,
          `* BatchEmbedContentsRequest.requests[${index}].model: the model must match the batch's model models/${modelId}`,
        );
      }
      return embedOne(item);
    });
  }

  const server = await startHttpServer(handle, (error) =>
    error instanceof SyntaxError ? geminiError(400, error.message) : geminiError(500, DEFAULT_MESSAGES[500]!),
  );
  const streams = server.streams;

  const state: GeminiStandIn = {
    url: server.url,
    apiKey,
    requests: server.requests,
    streams,
    get lastStream() {
      return streams[streams.length - 1];
    },
    openConnections: server.openConnections,
    ...controls.switches,
    lastEventOnlyFinishReason: false,
    blockPrompt(reason) {
      blockReason = reason;
    },
    emitThoughts: false,
    reset() {
      controls.reset();
      blockReason = null;
      state.lastEventOnlyFinishReason = false;
      state.emitThoughts = false;
      server.requests.length = 0;
      streams.length = 0;
    },
    close: server.close,
  };
  return state;
}

function checkApiKey(header: string | string[] | undefined, queryKey: string | null, expected: string): void {
  const key = (Array.isArray(header) ? header[0] : header) ?? queryKey ?? undefined;
  if (key === undefined || key === '') {
    throw geminiError(
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (key !== expected) {
    throw geminiError(400, 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      {
        '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
        locale: 'en-US',
        message: 'API key not valid. Please pass a valid API key.',
      },
    ]);
  }
}

function describeModel(model: GeminiModelInfo): Record<string, unknown> {
  const isEmbedding = model.supportedGenerationMethods.includes('embedContent');
  return {
    name: `models/${model.id}`,
    version: '001',
    displayName: model.id,
    description: `Stand-in for ${model.id}`,
    inputTokenLimit: model.inputTokenLimit ?? (isEmbedding ? 2048 : 1_048_576),
    outputTokenLimit: model.outputTokenLimit ?? (isEmbedding ? 1 : 65_536),
    supportedGenerationMethods: model.supportedGenerationMethods,
  };
}

function usage(promptTokenCount: number, candidatesTokenCount: number): Record<string, number> {
  return { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
}

function geminiFrame(event: unknown): string {
  return `data: ${JSON.stringify(event)}\r\n\r\n`;
}

function textOf(content: unknown): string {
  const parts = (content as { parts?: { text?: unknown }[] } | undefined)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) {
    throw geminiError(400, '* EmbedContentRequest.content: contents is not specified');
  }
  return parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

function dimensionsOf(body: Record<string, unknown>): number {
  const requested = body.outputDimensionality ?? body.output_dimensionality;
  if (requested === undefined) return DEFAULT_EMBED_DIMENSIONS;
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 1 || requested > DEFAULT_EMBED_DIMENSIONS) {
    throw geminiError(400, `* EmbedContentRequest.output_dimensionality: must be between 1 and ${DEFAULT_EMBED_DIMENSIONS}`);
  }
  return requested;
}
