import { useEffect, useState } from 'react';
import { ChatClientError, isAbortError } from './chat-errors.js';
import { chatReducer, initialChatState, type ChatMessage } from './chat-state.js';
import { fetchSharedConversation } from './conversation-api.js';
import type { FetchFunction } from './stream-client.js';

export type SharedConversationState =
  { status: 'loading' } | { status: 'loaded'; messages: ChatMessage[] } | { status: 'failed'; error: ChatClientError };

/** A shared conversation, loaded read-only: its messages carry no server ids, so nothing in it can be rated or continued. */
export function useSharedConversation(serverUrl: string, shareId: string | null, fetchImpl?: FetchFunction): SharedConversationState {
  const [state, setState] = useState<SharedConversationState>({ status: 'loading' });
  useEffect(() => {
    if (shareId === null) return undefined;
    const controller = new AbortController();
    setState({ status: 'loading' });
    fetchSharedConversation(serverUrl, shareId, { signal: controller.signal, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
      .then((conversation) => {
        // The same mapping as a resumed conversation, without the ids that would allow rating.
        const { messages } = chatReducer(initialChatState, { type: 'resume-loaded', conversation });
        setState({ status: 'loaded', messages: messages.map((message) => ({ ...message, serverId: null })) });
      })
      .catch((error: unknown) => {
        if (isAbortError(error)) return;
        setState({
          status: 'failed',
          error: error instanceof ChatClientError ? error : new ChatClientError('server', 'Something unexpected went wrong.'),
        });
      });
    return () => controller.abort();
  }, [serverUrl, shareId, fetchImpl]);
  return state;
}
