import { chatReducer, initialChatState } from './chat-state.js';
import type { StoredConversationMessage } from './conversation-api.js';

function stored(id: string, role: 'user' | 'assistant', content: string, status: string): StoredConversationMessage {
  return {
    id,
    role,
    content,
    mode: 'general',
    sources: [],
    status,
    finish_reason: status === 'interrupted' ? 'interrupted' : null,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('resuming a stored conversation', () => {
  it('keeps an answer the server marked interrupted (a restart mid-answer) as interrupted, with its partial text', () => {
    const state = chatReducer(initialChatState, {
      type: 'resume-loaded',
      conversation: {
        id: 'c1',
        created_at: '2026-01-01T00:00:00.000Z',
        messages: [
          stored('q1', 'user', 'How do I install it?', 'complete'),
          stored('a1', 'assistant', 'Install the package from', 'interrupted'),
        ],
      },
    });
    expect(state.messages.map((message) => [message.role, message.content, message.status])).toEqual([
      ['user', 'How do I install it?', 'complete'],
      ['assistant', 'Install the package from', 'interrupted'],
    ]);
    expect(state.messages[1]?.finishReason).toBe('interrupted');
  });

  it('shows a pending answer as pending and a failed one as failed, never as an empty complete answer', () => {
    const state = chatReducer(initialChatState, {
      type: 'resume-loaded',
      conversation: {
        id: 'c2',
        created_at: '2026-01-01T00:00:00.000Z',
        messages: [stored('a1', 'assistant', '', 'pending'), stored('a2', 'assistant', 'Half', 'error')],
      },
    });
    expect(state.messages.map((message) => message.status)).toEqual(['pending', 'error']);
  });
});
