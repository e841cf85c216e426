/**
 * A local server that speaks the OpenAI-compatible REST + SSE protocol
 * (chat completions, embeddings, models), so the real `openai` client runs in
 * tests against it. Give the SDK `standIn.baseUrl` (which ends in `/v1`).
 */
import { deterministicEmbedding } from './deterministic-embedding.js';
import { groundedReply, splitIntoPieces } from './grounded-reply.js';
import { approximateTokens, HttpFailure, sendJson, startHttpServer, writeEventStream } from './stand-in-server.js';
import type { RecordedRequest, StandInContext, StreamRecord } from './stand-in-server.js';
import { createStreamControls } from './stream-controls.js';

export type OpenAIEndpoint = 'chat.completions' | 'embeddings';

export interface OpenAIChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}

export interface OpenAIChatBody {
  model?: string;
  messages?: OpenAIChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
}

/** What a `respond` hook gets to decide the reply text. */
export interface OpenAIChatRequest {
  model: string;
  body: OpenAIChatBody;
  /** Every message's text, joined. */
  promptText: string;
  /** The text of the last `user` message. */
  lastUserText: string;
}

/** A fixed reply, or a hook that decides it per request. */
export type OpenAIReply = string | ((request: OpenAIChatRequest) => string);

export interface OpenAIFault {
  /** 400, 401, 404, 429, 500, 503, ... */
  status: number;
  /** For 429: seconds sent in `retry-after` (e.g. `0.2`; default 1). */
  retryAfterSeconds?: number;
  message?: string;
  /** How many consecutive requests fail this way (default 1). */
  times?: number;
  /** Only requests to this endpoint fail (default: any POST). */
  endpoint?: OpenAIEndpoint;
}

export interface OpenAIStandInOptions {
  /** The only key accepted (default `test-openai-key`). */
  apiKey?: string;
  /** Model ids served (default: a chat model and an embedding model). */
  models?: string[];
  eventDelayMs?: number;
  replyText?: string;
  respond?: (request: OpenAIChatRequest) => string;
  wordsPerEvent?: number;
  /** Largest `input` array accepted by `/v1/embeddings` (default 2048, as OpenAI). */
  maxEmbeddingInputs?: number;
}

export interface OpenAIStandIn {
  /** Root URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** `${url}/v1`, what the SDK takes as `baseURL`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  readonly streams: StreamRecord[];
  readonly lastStream: StreamRecord | undefined;
  openConnections(): number;
  failNext(fault: OpenAIFault): void;
  /** The next stream is destroyed after `events` frames, before `[DONE]`. */
  cutStreamAfter(events: number): void;
  /** Finish reason of answers (default `stop`); `length` is also set on its own when `max_tokens` cuts the reply. */
  setFinishReason(reason: string): void;
  setDelay(ms: number): void;
  setReply(reply: OpenAIReply | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_OPENAI_MODELS = ['gpt-4o-mini', 'text-embedding-3-small', 'nomic-embed-text'];

const STAND_IN_CREATED = 1_700_000_000;
const EMBEDDING_DIMENSIONS = 1536;

const ERROR_TYPES: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again in 1s.',
  },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The server is overloaded or not ready yet.' },
};

/** An OpenAI error body, `{"error":{"message","type","param","code"}}`. */
export function openAIError(
  status: number,
  message?: string,
  extra: { code?: string | null; param?: string | null; headers?: Record<string, string> } = {},
): HttpFailure {
  const known = ERROR_TYPES[status] ?? { type: 'api_error', code: null, message: `Forced failure ${status}.` };
  return new HttpFailure(
    status,
    {
      error: {
        message: message ?? known.message,
        type: known.type,
        param: extra.param ?? null,
        code: extra.code === undefined ? known.code : extra.code,
      },
    },
    extra.headers,
  );
}

export async function startOpenAIStandIn(options: OpenAIStandInOptions = {}): Promise<OpenAIStandIn> {
  const apiKey = options.apiKey ?? 'test-openai-key';
  const models = new Set(options.models ?? DEFAULT_OPENAI_MODELS);
  const wordsPerEvent = options.wordsPerEvent ?? 3;
  const maxEmbeddingInputs = options.maxEmbeddingInputs ?? 2048;
  const controls = createStreamControls<OpenAIFault, OpenAIReply>(() => ({
    delayMs: options.eventDelayMs ?? 0,
    reply: options.respond ?? options.replyText,
    finishReason: 'stop',
  }));

  const handle = async (context: StandInContext): Promise<void> => {
    const { request, response, recorded } = context;
    const path = recorded.path;
    checkBearer(request.headers.authorization, apiKey);

    if (request.method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: [...models].map(describeModel) });
      return;
    }
    const modelMatch = /^\/v1\/models\/(.+)$/.exec(path);
    if (request.method === 'GET' && modelMatch) {
      const id = modelMatch[1]!;
      if (!models.has(id)) throw modelNotFound(id);
      sendJson(response, 200, describeModel(id));
      return;
    }
    const endpoint: OpenAIEndpoint | undefined =
      path === '/v1/chat/completions' ? 'chat.completions' : path === '/v1/embeddings' ? 'embeddings' : undefined;
    if (request.method !== 'POST' || endpoint === undefined) {
      throw new HttpFailure(404, {
        error: {
          message: `Unknown request URL: ${request.method} ${path}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
    }
    const body = (recorded.body ?? {}) as Record<string, unknown>;
    if (typeof body.model !== 'string' || body.model === '') {
      throw openAIError(400, 'you must provide a model parameter', { param: 'model' });
    }
    if (!models.has(body.model)) throw modelNotFound(body.model);
    takeFault(endpoint);
    if (endpoint === 'embeddings') sendJson(response, 200, embed(body));
    else await chat(context, body as unknown as OpenAIChatBody & { model: string });
  };

  function takeFault(endpoint: OpenAIEndpoint): void {
    const fault = controls.takeFault((queued) => queued.endpoint === undefined || queued.endpoint === endpoint);
    if (!fault) return;
    const headers: Record<string, string> = {};
    if (fault.status === 429) {
      const seconds = fault.retryAfterSeconds ?? 1;
      headers['retry-after'] = String(seconds);
      headers['x-ratelimit-remaining-requests'] = '0';
    }
    throw openAIError(fault.status, fault.message, { headers });
  }

  async function chat(context: StandInContext, body: OpenAIChatBody & { model: string }): Promise<void> {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw openAIError(400, "Invalid 'messages': empty array. Expected an array with minimum length 1.", {
        param: 'messages',
        code: 'empty_array',
      });
    }
    const texts = body.messages.map((message) => messageText(message));
    const promptText = texts.join('\n');
    const lastUserIndex = body.messages.map((message) => message.role).lastIndexOf('user');
    const lastUserText = lastUserIndex === -1 ? '' : (texts[lastUserIndex] ?? '');
    const request: OpenAIChatRequest = { model: body.model, body, promptText, lastUserText };
    const { reply } = controls;
    let text = typeof reply === 'function' ? reply(request) : (reply ?? groundedReply(promptText, lastUserText));
    let finish = controls.finishReason;
    const limit = body.max_completion_tokens ?? body.max_tokens;
    const words = text.match(/\S+\s*/g) ?? [];
    if (limit !== undefined && words.length > limit) {
      text = words.slice(0, limit).join('');
      finish = 'length';
    }
    const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
    const promptTokens = approximateTokens(promptText);
    const completionTokens = approximateTokens(text);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };

    if (body.stream !== true) {
      sendJson(context.response, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finish }],
        usage,
      });
      return;
    }

    const includeUsage = body.stream_options?.include_usage === true;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
      openAIFrame({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        system_fingerprint: 'fp_stand_in',
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      });
    const frames = [chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }])];
    for (const piece of splitIntoPieces(text, wordsPerEvent)) {
      frames.push(chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    }
    frames.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
    if (includeUsage) frames.push(chunk([], { usage }));
    frames.push('data: [DONE]\n\n');
    await writeEventStream(context, streams, frames, { delayMs: () => controls.delayMs, cutAfter: controls.takeCut() });
  }

  function embed(body: Record<string, unknown>): Record<string, unknown> {
    const input = body.input;
    const texts = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
      throw openAIError(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", {
        param: 'input',
      });
    }
    if (texts.length > maxEmbeddingInputs) {
      throw openAIError(400, `'$.input' is too long: at most ${maxEmbeddingInputs} inputs per request.`, { param: 'input' });
    }
    const dimensions = body.dimensions === undefined ? EMBEDDING_DIMENSIONS : body.dimensions;
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > EMBEDDING_DIMENSIONS) {
      throw openAIError(400, `Invalid 'dimensions': must be an integer between 1 and ${EMBEDDING_DIMENSIONS}.`, { param: 'dimensions' });
    }
    const format = body.encoding_format ?? 'float';
    if (format !== 'float' && format !== 'base64') {
      throw openAIError(400, "Invalid 'encoding_format': expected 'float' or 'base64'.", { param: 'encoding_format' });
    }
    const tokens = texts.reduce((sum: number, text: string) => sum + approximateTokens(text), 0);
    return {
      object: 'list',
      data: texts.map((text: string, index: number) => {
        const values = deterministicEmbedding(text, dimensions);
        return {
          object: 'embedding',
          index,
          embedding: format === 'base64' ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values,
        };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }

  const server = await startHttpServer(handle, (error) =>
    error instanceof SyntaxError ? openAIError(400, 'We could not parse the JSON body of your request.') : openAIError(500),
  );
  const streams = server.streams;

  const state: OpenAIStandIn = {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    apiKey,
    requests: server.requests,
    streams,
    get lastStream() {
      return streams[streams.length - 1];
    },
    openConnections: server.openConnections,
    ...controls.switches,
    reset() {
      controls.reset();
      server.requests.length = 0;
      streams.length = 0;
    },
    close: server.close,
  };
  return state;
}

function checkBearer(header: string | undefined, expected: string): void {
  const match = header === undefined ? null : /^Bearer\s+(.*)$/i.exec(header);
  if (!match || match[1] === '') {
    throw openAIError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      { code: null },
    );
  }
  const key = match[1]!;
  if (key !== expected) {
    const masked = key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}` : '***';
    throw openAIError(
      401,
      `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    );
  }
}

function modelNotFound(id: string): HttpFailure {
  return openAIError(404, `The model \`${id}\` does not exist or you do not have access to it.`);
}

function describeModel(id: string): Record<string, unknown> {
  return { id, object: 'model', created: STAND_IN_CREATED, owned_by: 'stand-in' };
}

function messageText(message: OpenAIChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('');
  return '';
}

function openAIFrame(event: unknown): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}
