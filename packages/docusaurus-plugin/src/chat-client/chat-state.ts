import type { ChatMode, ChatStreamEvent, FinishReason, SourceRef } from '@docs-chat/protocol';
import type { ChatClientError, ChatErrorKind } from './chat-errors.js';
import type { FeedbackRating, StoredConversation } from './conversation-api.js';

/** 'pending': a resumed answer the server has not finished (still being written, or cut short before the server could mark it). */
export type MessageStatus = 'streaming' | 'pending' | 'complete' | 'stopped' | 'interrupted' | 'error';

/** One turn of the conversation as the widget shows it. */
export interface ChatMessage {
  /** Stable key for React; the server id arrives later (or never). */
  localId: string;
  role: 'user' | 'assistant';
  content: string;
  mode: ChatMode;
  /** Sources of an assistant answer: all retrieved ones while it streams, then the ones it cites (see `citedSourcesOnly`). */
  sources: SourceRef[];
  /**
   * True once `sources` is the server's final list (the `done` event, or a saved conversation): only the cited
   * sources, in order of first citation. False or absent: the `sources` event's list, where source n is the n-th.
   */
  citedSourcesOnly?: boolean;
  status: MessageStatus;
  /** The server's message id, needed to send feedback. */
  serverId: string | null;
  finishReason: FinishReason | null;
  /** Warnings the server sent with this answer (e.g. selection truncated). */
  warnings: string[];
  feedback: FeedbackRating | null;
}

export interface ChatErrorState {
  kind: ChatErrorKind;
  message: string;
  retryable: boolean;
  retryAfterSeconds: number | null;
}

/** What a question was sent with, kept so Retry can send it again unchanged. */
export interface SentQuestion {
  message: string;
  mode: ChatMode;
  context?: string;
}

export interface ChatState {
  conversationId: string | null;
  messages: ChatMessage[];
  /** 'resuming' while a stored conversation loads. */
  status: 'idle' | 'streaming' | 'resuming';
  error: ChatErrorState | null;
  /** False once the server said this conversation could not be saved. */
  persisted: boolean;
  lastQuestion: SentQuestion | null;
  /** The last finished answer, for the polite live region (whole answers, never tokens). */
  announcement: string;
}

export const initialChatState: ChatState = {
  conversationId: null,
  messages: [],
  status: 'idle',
  error: null,
  persisted: true,
  lastQuestion: null,
  announcement: '',
};

export type ChatAction =
  | { type: 'question-sent'; question: SentQuestion; userId: string; assistantId: string }
  | { type: 'stream-event'; event: ChatStreamEvent }
  | { type: 'stream-finished' }
  | { type: 'stream-stopped' }
  | { type: 'stream-failed'; error: ChatClientError }
  | { type: 'retry-prepared' }
  | { type: 'conversation-reset' }
  | { type: 'resume-started' }
  | { type: 'resume-loaded'; conversation: StoredConversation }
  | { type: 'resume-failed'; error: ChatClientError }
  | { type: 'feedback-given'; localId: string; rating: FeedbackRating | null }
  | { type: 'feedback-failed'; error: ChatClientError }
  | { type: 'error-dismissed' };

function updateStreamingAnswer(state: ChatState, update: (message: ChatMessage) => ChatMessage): ChatState {
  const last = state.messages[state.messages.length - 1];
  if (!last || last.role !== 'assistant' || last.status !== 'streaming') return state;
  return { ...state, messages: [...state.messages.slice(0, -1), update(last)] };
}

function toErrorState(error: ChatClientError): ChatErrorState {
  return { kind: error.kind, message: error.message, retryable: error.retryable, retryAfterSeconds: error.retryAfterSeconds };
}

function applyStreamEvent(state: ChatState, event: ChatStreamEvent): ChatState {
  switch (event.type) {
    case 'meta':
      return updateStreamingAnswer(
        {
          ...state,
          // Only a saved conversation can be continued: the server does not know an unsaved id.
          conversationId: event.persisted === false ? state.conversationId : event.conversation_id,
          persisted: state.persisted && event.persisted !== false,
        },
        (message) => ({ ...message, serverId: event.message_id, mode: event.mode ?? message.mode }),
      );
    case 'sources':
      return updateStreamingAnswer(state, (message) => ({ ...message, sources: event.sources, citedSourcesOnly: false }));
    case 'token':
      return updateStreamingAnswer(state, (message) => ({ ...message, content: message.content + event.content }));
    case 'warning':
      // The widget cuts a selection by the server's own rule and says so in the selection banner:
      // the server's word on the same cut would be a second, redundant warning.
      if (event.code === 'selection_truncated') return state;
      return updateStreamingAnswer(state, (message) => ({ ...message, warnings: [...message.warnings, event.message] }));
    case 'done': {
      const next = updateStreamingAnswer(state, (message) => ({
        ...message,
        ...(event.sources.length > 0 || message.sources.length === 0 ? { sources: event.sources, citedSourcesOnly: true } : {}),
        finishReason: event.finish_reason,
        status: event.finish_reason === 'interrupted' ? 'interrupted' : 'complete',
      }));
      const answer = next.messages[next.messages.length - 1];
      return { ...next, status: 'idle', announcement: answer?.role === 'assistant' ? answer.content : next.announcement };
    }
    case 'error':
      // The client rejects right after with a ChatClientError; 'stream-failed' records it.
      return state;
  }
}

/** A stored message's status as the widget shows it; anything unknown is shown as a finished answer. */
function resumedStatus(status: string): MessageStatus {
  return status === 'interrupted' || status === 'error' || status === 'pending' || status === 'stopped' ? status : 'complete';
}

/** The conversation as a pure reducer, so the hook stays thin and the rules are testable alone. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'question-sent': {
      const { question } = action;
      const user: ChatMessage = {
        localId: action.userId,
        role: 'user',
        content: question.message,
        mode: question.mode,
        sources: [],
        status: 'complete',
        serverId: null,
        finishReason: null,
        warnings: [],
        feedback: null,
      };
      const assistant: ChatMessage = { ...user, localId: action.assistantId, role: 'assistant', content: '', status: 'streaming' };
      // The previous answer's announcement is over: the live region moves on to this question.
      return {
        ...state,
        messages: [...state.messages, user, assistant],
        status: 'streaming',
        error: null,
        lastQuestion: question,
        announcement: '',
      };
    }
    case 'stream-event':
      return applyStreamEvent(state, action.event);
    case 'stream-finished':
      // The stream closed after `done`; make sure nothing is left marked as streaming.
      return { ...updateStreamingAnswer(state, (message) => ({ ...message, status: 'complete' })), status: 'idle' };
    case 'stream-stopped':
      return { ...updateStreamingAnswer(state, (message) => ({ ...message, status: 'stopped' })), status: 'idle' };
    case 'stream-failed':
      return {
        ...updateStreamingAnswer(state, (message) => ({ ...message, status: 'error' })),
        status: 'idle',
        error: toErrorState(action.error),
      };
    case 'retry-prepared': {
      // Drop the failed exchange so the retried one takes its place.
      const messages = [...state.messages];
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant' && last.status !== 'complete') messages.pop();
      if (messages[messages.length - 1]?.role === 'user') messages.pop();
      return { ...state, messages, error: null };
    }
    case 'conversation-reset':
      return { ...initialChatState };
    case 'resume-started':
      return { ...initialChatState, status: 'resuming' };
    case 'resume-loaded':
      return {
        ...initialChatState,
        conversationId: action.conversation.id,
        messages: action.conversation.messages.map((stored) => ({
          localId: stored.id,
          role: stored.role,
          content: stored.content,
          mode: stored.mode === 'selection' ? 'selection' : 'general',
          sources: stored.sources,
          citedSourcesOnly: true,
          status: resumedStatus(stored.status),
          serverId: stored.role === 'assistant' ? stored.id : null,
          finishReason: stored.finish_reason,
          warnings: [],
          feedback: stored.role === 'assistant' ? (stored.rating ?? null) : null,
        })),
      };
    case 'resume-failed':
      return { ...initialChatState, error: toErrorState(action.error) };
    case 'feedback-given':
      return {
        ...state,
        messages: state.messages.map((message) => (message.localId === action.localId ? { ...message, feedback: action.rating } : message)),
      };
    case 'feedback-failed':
      // Not retryable from the error banner: Retry would resend the question instead.
      return { ...state, error: { ...toErrorState(action.error), retryable: false } };
    case 'error-dismissed':
      return { ...state, error: null };
  }
}
