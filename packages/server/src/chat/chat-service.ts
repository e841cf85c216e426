/**
 * The chat orchestration, free of HTTP: given a validated request it yields
 * the protocol's events in order (meta, sources in general mode, tokens, done;
 * warning and error as they happen) and keeps the conversation store up to
 * date whatever happens. The question is stored before the model is called, the
 * answer's text every second while it streams, and the answer when it ends,
 * complete, interrupted or failed. When the store is
 * down the answer still streams, with `meta.persisted = false` and a warning.
 */
import { randomUUID } from 'node:crypto';
import {
  MAX_SELECTION_TOKENS,
  otherVersionNote,
  selectionTruncatedMessage,
  type ChatMode,
  type ChatRequest,
  type ChatStreamEvent,
  type ErrorEvent,
  type FinishReason,
  type SourceRef,
  type TokenUsage,
  type WarningEvent,
} from '@docs-chat/core/protocol';
import type {
  AssembleContext,
  AssembledContext,
  ContextSource,
  CountTokens,
  RequestedScope,
  Retriever,
  SearchResponse,
} from '../core-api.js';
import { boundSelection, isDocsChatError, withPageOutline } from '../core-api.js';
import type { MessageStatus } from '../conversations/conversation-store.js';
import type { ChatModel, ChatModelRequest, ChatTurn } from '../llm/chat-model.js';
import { isLlmError } from '../llm/chat-model.js';
import { generalSystemPrompt, OUT_OF_SCOPE_ANSWER, selectionSystemPrompt } from './chat-prompt.js';
import { sourcesUsedByAnswer } from './cited-sources.js';
import { type ConversationGateway, describeError, type ServerLogger } from './conversation-gateway.js';
import { retrievalQuery } from './follow-up-query.js';
import { detectSmallTalk, smallTalkReply } from './small-talk.js';

/** Chunks retrieved per question. */
export const RETRIEVED_CHUNKS = 5;
/** User+assistant pairs of earlier conversation sent with a general question. */
export const HISTORY_PAIRS = 3;
/** Low: answers should restate the documentation, not improvise around it. */
export const ANSWER_TEMPERATURE = 0.2;

export const BUSY_MESSAGE = 'Service temporarily busy, please try again in a moment';
/** The text streamed so far is saved at most this often, so a killed server loses at most this much of it. */
export const PROGRESS_SAVE_MS = 1000;

/** Where the retriever lives; the admin ingest may swap it for a fresh one. */
export interface RetrievalHandle {
  retriever: Retriever;
}

export interface ChatServiceDependencies {
  retrieval: RetrievalHandle;
  assembleContext: AssembleContext;
  countTokens: CountTokens;
  chatModel: ChatModel;
  conversations: ConversationGateway;
  newId?: () => string;
  /** Milliseconds on a monotonic clock (tests step it); `performance.now()` by default. */
  now?: () => number;
}

/** The reason given to the abort signal when the server stops before a stream has finished. */
export class ServerShutdownError extends Error {
  constructor() {
    super('The server is shutting down.');
    this.name = 'ServerShutdownError';
  }
}

export type ChatStart =
  | { kind: 'unknown_conversation' }
  /** The question encoder's queue is full: refused before anything is stored or streamed (HTTP 503 with retry-after). */
  | { kind: 'busy'; message: string; retryAfterMs: number | undefined }
  | {
      kind: 'stream';
      conversationId: string;
      messageId: string;
      mode: ChatMode;
      /** False for selection mode and small talk. */
      usedRetrieval: boolean;
      events: AsyncGenerator<ChatStreamEvent, void, undefined>;
      /** Filled in while the events are produced; complete once they end. */
      metrics: ChatMetrics;
    };

/** What operators see of an answer in the logs: durations and outcome, never text. */
export interface ChatMetrics {
  /** Time spent retrieving, in milliseconds (general questions only). */
  retrievalMs?: number;
  /** Time from the start of the answer to the model's first text, in milliseconds. */
  firstTextMs?: number;
  hits?: number;
  outOfScope?: boolean;
  finishReason?: FinishReason;
  persisted?: boolean;
  usage?: TokenUsage | null;
  /** The model failure's code, when the model failed (e.g. llm_unavailable). */
  modelError?: string;
}

interface Turn {
  request: ChatRequest;
  conversationId: string;
  isNewConversation: boolean;
  userMessageId: string;
  messageId: string;
  /** Still true while every write to the store has worked. */
  persisted: boolean;
  signal: AbortSignal;
  logger: ServerLogger;
  startedAt: number;
  metrics: ChatMetrics;
  /** The recent pairs of a follow-up's conversation (empty for a new one), being read since start(). */
  history: Promise<ChatTurn[]>;
}

/** A general question's search, done before anything of the turn is stored. */
type Searched = { ok: true; response: SearchResponse; history: ChatTurn[] } | { ok: false; error: unknown };

interface Answer {
  text: string;
  status: MessageStatus;
  finishReason: FinishReason;
  usage: TokenUsage | null;
  sources: SourceRef[];
}

/** At most one log line per this many ms about questions refused because the server was busy. */
export const BUSY_LOG_INTERVAL_MS = 10_000;

/**
 * Questions refused because the question encoder's queue was full are load shedding, which the reader is told
 * to retry, not failures: one warning per interval with how many were refused, rather than an error line each
 * (thousands a minute under overload, which would page whoever alerts on error-level logs).
 */
class BusyRefusalLog {
  #lastLoggedAt = Number.NEGATIVE_INFINITY;
  #unlogged = 0;

  constructor(private readonly now: () => number) {}

  note(logger: ServerLogger): void {
    this.#unlogged += 1;
    const now = this.now();
    if (now - this.#lastLoggedAt < BUSY_LOG_INTERVAL_MS) return;
    const refused = this.#unlogged;
    const sinceMs = Number.isFinite(this.#lastLoggedAt) ? Math.round(now - this.#lastLoggedAt) : 0;
    this.#lastLoggedAt = now;
    this.#unlogged = 0;
    logger.warn(
      { refused, sinceMs },
      "questions refused as busy: the question encoder's queue is full (readers are asked to retry); if this persists, give the server more CPU or run more server processes (WORKERS)",
    );
  }
}

export class ChatService {
  private readonly newId: () => string;
  private readonly contexts = new WeakMap<SearchResponse, AssembledContext>();
  private readonly busyRefusals: BusyRefusalLog;

  constructor(private readonly deps: ChatServiceDependencies) {
    this.newId = deps.newId ?? randomUUID;
    this.busyRefusals = new BusyRefusalLog(deps.now ?? (() => performance.now()));
  }

  /**
   * Checks what must be known before the first byte (an unknown conversation is a 404, a
   * question the server is too busy to search a 503) and returns the event stream. Iterate
   * it to the end: it finishes storing the answer even after the signal aborts.
   */
  async start(request: ChatRequest, signal: AbortSignal, logger: ServerLogger): Promise<ChatStart> {
    let persisted = true;
    const smallTalk = request.mode === 'general' ? detectSmallTalk(request.message) : null;
    let history: Promise<ChatTurn[]> = Promise.resolve([]);
    if (request.conversation_id !== undefined) {
      const conversationId = request.conversation_id;
      // A general question's history is read alongside the existence check: one round trip for both
      // (an unknown conversation simply has none).
      if (request.mode === 'general' && smallTalk === null) history = this.loadHistory(conversationId, logger);
      try {
        const exists = await this.deps.conversations.run((store) => store.conversationExists(conversationId));
        if (!exists) return { kind: 'unknown_conversation' };
      } catch (error) {
        logger.warn({ err: describeError(error) }, 'conversation store unavailable: answering without saving');
        persisted = false;
      }
    }
    const turn: Turn = {
      request,
      conversationId: request.conversation_id ?? this.newId(),
      isNewConversation: request.conversation_id === undefined,
      userMessageId: this.newId(),
      messageId: this.newId(),
      persisted,
      signal,
      logger,
      startedAt: performance.now(),
      metrics: {},
      history,
    };
    let events: AsyncGenerator<ChatStreamEvent, void, undefined>;
    if (request.mode === 'selection') events = this.answerSelection(turn);
    else if (smallTalk !== null) events = this.answerFixed(turn, smallTalkReply(smallTalk), 'stop');
    else {
      // A general question is searched before anything is stored. Under overload the question encoder's queue
      // is full and most new questions are refused: they then cost no writes and no stream, and leave no
      // unanswered question in the conversation. Searching first delays the question's row by the search, but the
      // first token waits for the search anyway.
      const searched = await this.search(turn);
      if (!searched.ok && !signal.aborted && isDocsChatError(searched.error) && searched.error.code === 'service_busy') {
        this.busyRefusals.note(logger);
        return { kind: 'busy', message: BUSY_MESSAGE, retryAfterMs: searched.error.retryAfterMs };
      }
      events = this.answerGeneral(turn, searched);
    }
    return {
      kind: 'stream',
      conversationId: turn.conversationId,
      messageId: turn.messageId,
      mode: request.mode,
      usedRetrieval: request.mode === 'general' && smallTalk === null,
      events,
      metrics: turn.metrics,
    };
  }

  /** Searches the docs for a general question (and its conversation's recent turns); never rejects. */
  private async search(turn: Turn): Promise<Searched> {
    const history = await turn.history;
    const query = retrievalQuery(turn.request.message, history);
    const retrievalStarted = performance.now();
    try {
      const response = await this.deps.retrieval.retriever.search(query, {
        k: RETRIEVED_CHUNKS,
        signal: turn.signal,
        scope: requestedScope(turn.request),
      });
      turn.metrics.retrievalMs = Math.round(performance.now() - retrievalStarted);
      turn.metrics.hits = response.hits.length;
      turn.metrics.outOfScope = response.outOfScope;
      return { ok: true, response, history };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private async *answerGeneral(turn: Turn, searched: Searched): AsyncGenerator<ChatStreamEvent, void, undefined> {
    await this.saveQuestion(turn);
    yield* this.openingEvents(turn);

    if (!searched.ok) {
      const aborted = turn.signal.aborted;
      if (!aborted) turn.logger.error({ err: describeError(searched.error) }, 'retrieval failed');
      const answer: Answer = {
        text: '',
        status: aborted ? 'interrupted' : 'error',
        finishReason: aborted ? 'interrupted' : 'error',
        usage: null,
        sources: [],
      };
      await this.saveAnswer(turn, answer);
      if (!aborted) {
        yield {
          type: 'error',
          code: 'search_unavailable',
          message: 'The documentation index cannot be searched right now; please try again shortly.',
          retryable: true,
        };
      } else if (isShutdown(turn.signal)) {
        yield shutdownEvent();
      }
      return;
    }

    const { response } = searched;
    if (response.outOfScope || response.hits.length === 0) {
      yield { type: 'sources', sources: [] };
      yield* this.finishFixed(turn, OUT_OF_SCOPE_ANSWER, 'no_answer');
      return;
    }

    const context = await this.contextFor(response, turn.signal);
    const numbered = context.sources.map((source) => ({ number: source.number, source: toSourceRef(source) }));
    const scope = response.scope;
    yield {
      type: 'sources',
      sources: numbered.map((entry) => entry.source),
      ...(scope
        ? {
            scope: {
              version: scope.version,
              version_label: scope.versionLabel,
              locale: scope.locale,
              ...(scope.readerVersion ? { reader_version: scope.readerVersion } : {}),
            },
          }
        : {}),
    };
    // A question about another version is answered from that version, and the answer says so.
    if (scope?.readerVersion)
      yield {
        type: 'warning',
        code: 'other_version',
        message: otherVersionNote(scope.versionLabel, scope.readerVersionLabel ?? scope.readerVersion),
      };

    yield* this.streamModel(
      turn,
      {
        system: generalSystemPrompt(context.text, turn.request.page),
        messages: [...searched.history, { role: 'user', content: turn.request.message }],
        question: turn.request.message,
        sources: context.sources,
        signal: turn.signal,
        temperature: ANSWER_TEMPERATURE,
      },
      (text) => sourcesUsedByAnswer(text, numbered),
    );
  }

  /**
   * The numbered context of a search response. A response served again by the retrieval
   * cache is the same object, so its context (token counting is not free) is built once.
   */
  private async contextFor(response: SearchResponse, signal: AbortSignal): Promise<AssembledContext> {
    let context = this.contexts.get(response);
    if (!context) {
      // A page's opening ranked first brings the page's outline: one read of that page, once per response.
      context = this.deps.assembleContext(await withPageOutline(response.hits, this.deps.retrieval.retriever, signal));
      // A cancelled read left the outline out: the next request for the same response tries again.
      if (!signal.aborted) this.contexts.set(response, context);
    }
    return context;
  }

  private async *answerSelection(turn: Turn): AsyncGenerator<ChatStreamEvent, void, undefined> {
    // The widget's rule too (one rule, one message): a passage it already cut is not cut again.
    const bounded = boundSelection(turn.request.context ?? '', MAX_SELECTION_TOKENS, this.deps.countTokens);
    await this.saveQuestion(turn);
    yield* this.openingEvents(turn);
    if (bounded.truncated) {
      yield {
        type: 'warning',
        code: 'selection_truncated',
        message: selectionTruncatedMessage(bounded.originalTokens),
      };
    }
    yield* this.streamModel(
      turn,
      {
        system: selectionSystemPrompt(bounded.text, turn.request.page),
        messages: [{ role: 'user', content: turn.request.message }],
        question: turn.request.message,
        sources: [],
        selection: bounded.text,
        signal: turn.signal,
        temperature: ANSWER_TEMPERATURE,
      },
      () => [],
    );
  }

  /** Small talk: a fixed reply, no retrieval, no model. */
  private async *answerFixed(turn: Turn, text: string, finishReason: FinishReason): AsyncGenerator<ChatStreamEvent, void, undefined> {
    await this.saveQuestion(turn);
    yield* this.openingEvents(turn);
    yield { type: 'sources', sources: [] };
    yield* this.finishFixed(turn, text, finishReason);
  }

  private async *finishFixed(turn: Turn, text: string, finishReason: FinishReason): AsyncGenerator<ChatStreamEvent, void, undefined> {
    yield { type: 'token', content: text };
    if (!(await this.saveAnswer(turn, { text, status: 'complete', finishReason, usage: null, sources: [] }))) yield notSavedWarning();
    yield { type: 'done', sources: [], finish_reason: finishReason, usage: null };
  }

  private async *openingEvents(turn: Turn): AsyncGenerator<ChatStreamEvent, void, undefined> {
    yield {
      type: 'meta',
      conversation_id: turn.conversationId,
      message_id: turn.messageId,
      mode: turn.request.mode,
      persisted: turn.persisted,
    };
    if (!turn.persisted) yield notSavedWarning();
  }

  private async *streamModel(
    turn: Turn,
    request: ChatModelRequest,
    sourcesFor: (answer: string) => SourceRef[],
  ): AsyncGenerator<ChatStreamEvent, void, undefined> {
    let text = '';
    let finishReason: FinishReason = 'stop';
    let usage: TokenUsage | null = null;
    let failure: ErrorEvent | null = null;
    let status: MessageStatus = 'complete';
    const progress = this.progressSaver(turn);
    try {
      for await (const event of this.deps.chatModel.stream(request)) {
        if (event.type === 'text') {
          if (event.text.length === 0) continue;
          turn.metrics.firstTextMs ??= Math.round(performance.now() - turn.startedAt);
          text += event.text;
          progress.update(text);
          yield { type: 'token', content: event.text };
        } else {
          finishReason = event.reason;
          usage = event.usage;
        }
        if (turn.signal.aborted) break;
      }
      if (turn.signal.aborted) {
        status = 'interrupted';
        finishReason = 'interrupted';
      }
    } catch (error) {
      if (turn.signal.aborted) {
        status = 'interrupted';
        finishReason = 'interrupted';
      } else {
        status = 'error';
        finishReason = 'error';
        failure = modelErrorEvent(error);
        turn.metrics.modelError = isLlmError(error) ? error.code : 'unexpected';
        turn.logger.error({ err: describeError(error), partialAnswerChars: text.length }, 'the chat model failed');
      }
    }
    const sources = sourcesFor(text);
    // A progress save still on its way (it may wait a moment for other answers' saves) is not waited for: it
    // only updates an answer that is still pending, so landing after the final save leaves that save whole.
    const saved = await this.saveAnswer(turn, { text, status, finishReason, usage, sources });
    if (!saved && status !== 'interrupted') yield notSavedWarning();
    if (failure) {
      yield failure;
      return;
    }
    if (status === 'interrupted') {
      if (isShutdown(turn.signal)) yield shutdownEvent();
      return;
    }
    yield { type: 'done', sources, finish_reason: finishReason, usage };
  }

  /**
   * Stores the conversation (when new), the question and the pending answer row before the model
   * is called, in one statement: one round trip and one commit on the way to the first token, and
   * all or nothing, so a failure leaves no half-started turn. The rows are written in that order
   * because message order follows insertion order.
   */
  private async saveQuestion(turn: Turn): Promise<void> {
    if (!turn.persisted) return;
    try {
      await this.deps.conversations.run((store) =>
        store.startTurn({
          conversationId: turn.conversationId,
          newConversation: turn.isNewConversation,
          mode: turn.request.mode,
          question: { id: turn.userMessageId, content: turn.request.message },
          answerId: turn.messageId,
          page: turn.request.page,
        }),
      );
      this.deps.conversations.answerStarted(turn.messageId);
    } catch (error) {
      turn.persisted = false;
      turn.logger.warn({ err: describeError(error) }, 'could not save the question: answering without saving');
    }
  }

  /**
   * Saves the text streamed so far at most once per PROGRESS_SAVE_MS (written together with other answers'
   * saves on a busy server), never two at once and never holding up the stream: after a crash the answer keeps
   * what the reader saw, up to a second's worth.
   */
  private progressSaver(turn: Turn): { update(text: string): void } {
    let lastSavedAt = performance.now();
    let inFlight: Promise<void> | null = null;
    return {
      update: (text: string) => {
        if (!turn.persisted || inFlight !== null || performance.now() - lastSavedAt < PROGRESS_SAVE_MS) return;
        lastSavedAt = performance.now();
        inFlight = this.deps.conversations
          .saveProgress(turn.messageId, text)
          .catch((error: unknown) => turn.logger.warn({ err: describeError(error) }, 'could not save the answer so far'))
          .finally(() => {
            inFlight = null;
          });
      },
    };
  }

  /** The conversation's recent pairs; never rejects (without them the question is answered on its own). */
  private async loadHistory(conversationId: string, logger: ServerLogger): Promise<ChatTurn[]> {
    try {
      return await this.deps.conversations.run((store) => store.recentTurns(conversationId, HISTORY_PAIRS));
    } catch (error) {
      logger.warn({ err: describeError(error) }, 'could not load the conversation history: answering without it');
      return [];
    }
  }

  /** Stores the final answer; false when it could not be saved (the reader is then warned). */
  private async saveAnswer(turn: Turn, answer: Answer): Promise<boolean> {
    turn.metrics.finishReason = answer.finishReason;
    turn.metrics.usage = answer.usage;
    turn.metrics.persisted = turn.persisted;
    if (!turn.persisted) return true;
    try {
      await this.deps.conversations.finishAnswer(turn.messageId, {
        content: answer.text,
        status: answer.status,
        sources: answer.sources,
        finishReason: answer.finishReason,
        usage: answer.usage,
      });
      return true;
    } catch (error) {
      turn.metrics.persisted = false;
      turn.logger.warn({ err: describeError(error), status: answer.status }, 'could not save the answer');
      return false;
    }
  }
}

export function toSourceRef(source: ContextSource): SourceRef {
  const { chunk } = source;
  return {
    file: chunk.file,
    title: chunk.title,
    heading: chunk.heading,
    heading_path: chunk.headingPath,
    url: chunk.url,
    score: source.score,
    // A record without a URL is cited by its id.
    ...(chunk.url === '' ? { id: chunk.docId } : {}),
    ...(chunk.version !== undefined ? { version: chunk.version } : {}),
    ...(chunk.locale !== undefined ? { locale: chunk.locale } : {}),
    ...(chunk.fallbackLocale !== undefined ? { fallback_locale: chunk.fallbackLocale } : {}),
  };
}

/** The reader's version and locale, as the retriever takes them. */
function requestedScope(request: ChatRequest): RequestedScope {
  return {
    ...(request.version !== undefined ? { version: request.version } : {}),
    ...(request.locale !== undefined ? { locale: request.locale } : {}),
    ...(request.docs_instance !== undefined ? { instance: request.docs_instance } : {}),
  };
}

function notSavedWarning(): WarningEvent {
  return {
    type: 'warning',
    code: 'conversation_not_saved',
    message: 'This conversation cannot be saved right now, so it will not be available after you leave the page.',
  };
}

function isShutdown(signal: AbortSignal): boolean {
  return signal.reason instanceof ServerShutdownError;
}

function shutdownEvent(): ErrorEvent {
  return {
    type: 'error',
    code: 'shutting_down',
    message: 'The server is restarting and stopped this answer; please ask again in a few seconds.',
    retryable: true,
  };
}

/** The client-facing event for a model failure: a fixed message per code, never the provider's text. */
export function modelErrorEvent(error: unknown): ErrorEvent {
  if (isLlmError(error)) {
    switch (error.code) {
      case 'llm_rate_limited':
        return { type: 'error', code: 'busy', message: BUSY_MESSAGE, retryable: true };
      case 'llm_unavailable':
        return {
          type: 'error',
          code: 'llm_unavailable',
          message: 'The language model cannot be reached right now; please try again in a moment.',
          retryable: true,
        };
      case 'llm_stream_cut':
        return {
          type: 'error',
          code: 'answer_interrupted',
          message: 'The answer was cut off by the language model service; please ask again.',
          retryable: true,
        };
      case 'llm_blocked':
        return {
          type: 'error',
          code: 'answer_blocked',
          message: 'The language model declined to answer this question; try rephrasing it.',
          retryable: false,
        };
      default:
        return {
          type: 'error',
          code: 'llm_failed',
          message: 'The assistant could not generate an answer because of a server problem; the site admin can find details in the logs.',
          retryable: false,
        };
    }
  }
  return {
    type: 'error',
    code: 'internal_error',
    message: 'Something went wrong while answering; please try again.',
    retryable: true,
  };
}
