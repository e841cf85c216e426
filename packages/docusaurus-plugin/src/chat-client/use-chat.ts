import { useCallback, useEffect, useReducer, useRef } from 'react';
import type { ChatPage } from '@docs-chat/protocol';
import { ChatClientError, isAbortError } from './chat-errors.js';
import { chatReducer, initialChatState, type ChatState, type SentQuestion } from './chat-state.js';
import { fetchConversation, sendFeedback, type FeedbackRating } from './conversation-api.js';
import { streamChat, type FetchFunction } from './stream-client.js';
import { scopeRequestFields, type ReaderScope } from './reader-scope.js';

export interface UseChatOptions {
  serverUrl: string;
  /** Where the reader is, sent with each question; read lazily so it is always current. */
  getPage?: () => ChatPage | undefined;
  /** The reader's docs version and locale, read when a question is sent; answers keep to them. */
  getScope?: () => ReaderScope | undefined;
  /** For tests and custom transports; defaults to the global fetch. */
  fetch?: FetchFunction;
}

export interface UseChat {
  state: ChatState;
  /** Sends a question; ignored while an answer is still streaming. */
  send(question: SentQuestion): void;
  /** Stops the answer being generated (aborts the request). */
  stop: () => void;
  /** Sends the last question again after an error. */
  retry(): void;
  /** Forgets the conversation and starts an empty one. */
  startNew(): void;
  /** Loads a stored conversation by id. */
  resume(conversationId: string): Promise<void>;
  /**
   * Rates an answer through `POST /feedback`; the rating shows at once and is undone if it cannot be
   * stored. Giving the rating the answer already has takes it back (a pressed thumb pressed again).
   */
  rate: (localId: string, rating: FeedbackRating) => Promise<void>;
  /** The question behind the last answer when it can be sent again as it was (its answer was cut short); else null. */
  askAgainQuestion(): SentQuestion | null;
  /** Sends the question behind the last answer again, in place of that answer. */
  askAgain: () => void;
  dismissError(): void;
}

let localIdCounter = 0;
function nextLocalId(): string {
  localIdCounter += 1;
  return `local-${Date.now().toString(36)}-${localIdCounter}`;
}

function toClientError(error: unknown): ChatClientError {
  return error instanceof ChatClientError ? error : new ChatClientError('server', 'Something unexpected went wrong.');
}

// Not 'stopped' (the reader chose to stop it) nor 'pending' (the server may still be writing it).
const CUT_SHORT: ReadonlySet<string> = new Set(['interrupted', 'error']);

/**
 * The question behind the last answer, when that answer was cut short and the question can be
 * sent again as it was: the question sent in this session, or a resumed general question (a
 * resumed selection question cannot be: the passage it was about is not stored).
 */
function questionBehindLastAnswer(state: ChatState): SentQuestion | null {
  const answer = state.messages[state.messages.length - 1];
  const question = state.messages[state.messages.length - 2];
  if (answer?.role !== 'assistant' || !CUT_SHORT.has(answer.status) || question?.role !== 'user') return null;
  if (state.lastQuestion && state.lastQuestion.message === question.content) return state.lastQuestion;
  return question.mode === 'general' ? { message: question.content, mode: 'general' } : null;
}

/** The whole chat as a hook: no Docusaurus, no DOM beyond fetch. */
export function useChat({ serverUrl, getPage, getScope, fetch: fetchImpl }: UseChatOptions): UseChat {
  const [state, dispatch] = useReducer(chatReducer, initialChatState);
  const controllerRef = useRef<AbortController | null>(null);
  // Callbacks read the latest state through a ref so they keep a stable identity.
  const stateRef = useRef(state);
  stateRef.current = state;
  const getPageRef = useRef(getPage);
  getPageRef.current = getPage;
  const getScopeRef = useRef(getScope);
  getScopeRef.current = getScope;

  const abortCurrent = useCallback(() => {
    controllerRef.current?.abort();
    controllerRef.current = null;
  }, []);

  // Unmounting (the reader leaves) must not leave a request running.
  useEffect(() => abortCurrent, [abortCurrent]);

  const run = useCallback(
    async (question: SentQuestion) => {
      const controller = new AbortController();
      controllerRef.current = controller;
      dispatch({ type: 'question-sent', question, userId: nextLocalId(), assistantId: nextLocalId() });
      const { conversationId } = stateRef.current;
      const page = getPageRef.current?.();
      const scope = getScopeRef.current?.();
      try {
        const outcome = await streamChat({
          serverUrl,
          request: {
            message: question.message,
            mode: question.mode,
            ...(question.context !== undefined ? { context: question.context } : {}),
            ...(conversationId !== null ? { conversation_id: conversationId } : {}),
            ...(page ? { page } : {}),
            ...scopeRequestFields(scope),
          },
          onEvent: (event) => {
            if (controllerRef.current === controller) dispatch({ type: 'stream-event', event });
          },
          signal: controller.signal,
          ...(fetchImpl ? { fetch: fetchImpl } : {}),
        });
        if (controllerRef.current !== controller && outcome !== 'aborted') return;
        dispatch({ type: outcome === 'aborted' ? 'stream-stopped' : 'stream-finished' });
      } catch (error) {
        if (isAbortError(error)) dispatch({ type: 'stream-stopped' });
        else dispatch({ type: 'stream-failed', error: toClientError(error) });
      } finally {
        if (controllerRef.current === controller) controllerRef.current = null;
      }
    },
    [serverUrl, fetchImpl],
  );

  const send = useCallback(
    (question: SentQuestion) => {
      if (stateRef.current.status !== 'idle' || question.message.trim() === '') return;
      void run({ ...question, message: question.message.trim() });
    },
    [run],
  );

  const retry = useCallback(() => {
    const last = stateRef.current.lastQuestion;
    if (!last || stateRef.current.status !== 'idle') return;
    dispatch({ type: 'retry-prepared' });
    void run(last);
  }, [run]);

  const startNew = useCallback(() => {
    abortCurrent();
    dispatch({ type: 'conversation-reset' });
  }, [abortCurrent]);

  const resume = useCallback(
    async (conversationId: string) => {
      abortCurrent();
      const controller = new AbortController();
      controllerRef.current = controller;
      dispatch({ type: 'resume-started' });
      try {
        const conversation = await fetchConversation(serverUrl, conversationId, {
          signal: controller.signal,
          ...(fetchImpl ? { fetch: fetchImpl } : {}),
        });
        if (controllerRef.current === controller) dispatch({ type: 'resume-loaded', conversation });
      } catch (error) {
        if (isAbortError(error)) dispatch({ type: 'conversation-reset' });
        else dispatch({ type: 'resume-failed', error: toClientError(error) });
      } finally {
        if (controllerRef.current === controller) controllerRef.current = null;
      }
    },
    [serverUrl, fetchImpl, abortCurrent],
  );

  const rate = useCallback(
    async (localId: string, rating: FeedbackRating) => {
      const message = stateRef.current.messages.find((candidate) => candidate.localId === localId);
      if (!message?.serverId) return;
      const previous = message.feedback;
      const next = previous === rating ? null : rating;
      dispatch({ type: 'feedback-given', localId, rating: next });
      try {
        await sendFeedback(serverUrl, { message_id: message.serverId, rating: next }, fetchImpl ? { fetch: fetchImpl } : {});
      } catch (error) {
        // Undo the optimistic rating so the reader sees it did not stick.
        dispatch({ type: 'feedback-given', localId, rating: previous });
        dispatch({ type: 'feedback-failed', error: toClientError(error) });
      }
    },
    [serverUrl, fetchImpl],
  );

  const askAgainQuestion = useCallback(() => questionBehindLastAnswer(stateRef.current), []);

  const askAgain = useCallback(() => {
    const question = questionBehindLastAnswer(stateRef.current);
    if (!question || stateRef.current.status !== 'idle') return;
    dispatch({ type: 'retry-prepared' });
    void run(question);
  }, [run]);

  const stop = useCallback(() => abortCurrent(), [abortCurrent]);
  const dismissError = useCallback(() => dispatch({ type: 'error-dismissed' }), []);

  return { state, send, stop, retry, startNew, resume, rate, askAgainQuestion, askAgain, dismissError };
}
