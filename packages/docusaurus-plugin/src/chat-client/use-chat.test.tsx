import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { act, renderHook, waitFor } from '@testing-library/react';
import { useChat } from './use-chat.js';
import { readFixture, startChatTestServer, type ChatTestServer } from '../test-doubles/chat-server.js';

let server: ChatTestServer;
beforeAll(async () => {
  server = await startChatTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const CONVERSATION_ID = '7f0c6a52-3f1e-4d2b-9a57-2d7f4c1e8b90';

function renderChat() {
  return renderHook(() => useChat({ serverUrl: server.url, getPage: () => ({ url: 'http://localhost/docs/intro', title: 'Intro' }) }));
}

describe('useChat', () => {
  it('streams an answer into the state and keeps the conversation id for follow-ups', async () => {
    server.answerChatWith({ body: readFixture('general-answer.sse'), chunkSizes: [30, 30, 30], pauseMs: 5 });
    const { result } = renderChat();
    act(() => result.current.send({ message: '  How do I re-run the ingest?  ', mode: 'general' }));
    expect(result.current.state.status).toBe('streaming');
    expect(result.current.state.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    await waitFor(() => expect(result.current.state.status).toBe('idle'));
    const answer = result.current.state.messages[1];
    expect(answer).toMatchObject({ status: 'complete', finishReason: 'stop', serverId: 'c2b1d9e4-5a6f-4b7c-8d9e-0f1a2b3c4d5e' });
    expect(answer?.sources.map((source) => source.url)).toEqual(['/docs/guides/ingest#re-running-the-ingest', '/docs/reference/cli']);
    // The done event's sources are the cited ones, in order of first citation: citations are paired with them.
    expect(answer?.citedSourcesOnly).toBe(true);
    expect(result.current.state.conversationId).toBe(CONVERSATION_ID);
    expect(result.current.state.announcement).toBe(answer?.content);
    expect(server.requests[0]?.body).toEqual({
      message: 'How do I re-run the ingest?',
      mode: 'general',
      page: { url: 'http://localhost/docs/intro', title: 'Intro' },
    });

    server.answerChatWith({ body: readFixture('heartbeats.sse') });
    act(() => result.current.send({ message: 'And then?', mode: 'general' }));
    await waitFor(() => expect(result.current.state.status).toBe('idle'));
    expect(server.requests[1]?.body).toMatchObject({ conversation_id: CONVERSATION_ID });
  });

  it('ignores a second question while an answer is still streaming', async () => {
    server.answerChatWith({ body: readFixture('heartbeats.sse'), chunkSizes: [10, 10], pauseMs: 30 });
    const { result } = renderChat();
    act(() => result.current.send({ message: 'One', mode: 'general' }));
    act(() => result.current.send({ message: 'Two', mode: 'general' }));
    await waitFor(() => expect(result.current.state.status).toBe('idle'));
    expect(server.requests.filter((request) => request.url === '/chat')).toHaveLength(1);
  });

  it('sends selection questions with the passage as context', async () => {
    server.answerChatWith({ body: readFixture('selection-truncated.sse') });
    const { result } = renderChat();
    act(() => result.current.send({ message: 'Explain', mode: 'selection', context: 'The passage.' }));
    await waitFor(() => expect(result.current.state.status).toBe('idle'));
    expect(server.requests[0]?.body).toMatchObject({ mode: 'selection', context: 'The passage.' });
    // The widget cuts the passage by the server's rule and says so itself: the server's word on the cut is not repeated.
    expect(result.current.state.messages[1]?.warnings).toEqual([]);
  });

  it('stops an answer and marks it stopped', async () => {
    server.answerChatWith({ body: readFixture('held-open.sse'), holdOpen: true });
    const { result } = renderChat();
    act(() => result.current.send({ message: 'Long one', mode: 'general' }));
    await waitFor(() => expect(result.current.state.messages[1]?.content).toBe('Streaming…'));
    act(() => result.current.stop());
    await waitFor(() => expect(result.current.state.messages[1]?.status).toBe('stopped'));
    expect(result.current.state.status).toBe('idle');
    expect(result.current.state.error).toBeNull();
  });

  it('records a failure and retries the same question in place of the failed exchange', async () => {
    server.answerChatWith({ body: readFixture('cut-stream.sse') }, { body: readFixture('heartbeats.sse') });
    const { result } = renderChat();
    act(() => result.current.send({ message: 'Flaky', mode: 'general' }));
    await waitFor(() => expect(result.current.state.error?.kind).toBe('network'));
    expect(result.current.state.messages[1]?.status).toBe('error');
    act(() => result.current.retry());
    await waitFor(() => expect(result.current.state.messages[1]?.status).toBe('complete'));
    expect(result.current.state.messages.map((message) => message.content)).toEqual(['Flaky', 'Slow but steady.']);
    expect(result.current.state.error).toBeNull();
  });

  it('resumes a stored conversation and can start a new one', async () => {
    server.conversations.set(CONVERSATION_ID, {
      id: CONVERSATION_ID,
      created_at: '',
      messages: [
        {
          id: 'a1b2c3d4-0000-4000-8000-000000000001',
          role: 'user',
          content: 'Q',
          mode: 'selection',
          sources: [],
          status: 'complete',
          finish_reason: null,
          created_at: '',
        },
        {
          id: 'a1b2c3d4-0000-4000-8000-000000000002',
          role: 'assistant',
          content: 'Partial',
          mode: 'selection',
          sources: null,
          status: 'interrupted',
          finish_reason: 'interrupted',
          created_at: '',
        },
        { id: 'broken' },
      ],
    });
    const { result } = renderChat();
    await act(() => result.current.resume(CONVERSATION_ID));
    expect(result.current.state.conversationId).toBe(CONVERSATION_ID);
    expect(result.current.state.messages).toMatchObject([
      { role: 'user', content: 'Q', mode: 'selection', serverId: null },
      {
        role: 'assistant',
        content: 'Partial',
        status: 'interrupted',
        sources: [],
        citedSourcesOnly: true,
        serverId: 'a1b2c3d4-0000-4000-8000-000000000002',
      },
    ]);
    act(() => result.current.startNew());
    expect(result.current.state.messages).toEqual([]);
    expect(result.current.state.conversationId).toBeNull();
  });

  it('reports a conversation the server does not know as not found', async () => {
    const { result } = renderChat();
    await act(() => result.current.resume('11111111-2222-4333-8444-555555555555'));
    expect(result.current.state.error).toMatchObject({ kind: 'not_found', retryable: false });
  });

  it('does not continue a conversation the server could not save', async () => {
    server.answerChatWith({ body: readFixture('not-persisted.sse') });
    const { result } = renderChat();
    act(() => result.current.send({ message: 'Hello', mode: 'general' }));
    await waitFor(() => expect(result.current.state.status).toBe('idle'));
    expect(result.current.state.persisted).toBe(false);
    expect(result.current.state.conversationId).toBeNull();
  });

  it('aborts a running answer when the component using it unmounts', async () => {
    server.answerChatWith({ body: readFixture('held-open.sse'), holdOpen: true });
    const disconnected = server.nextDisconnect();
    const { result, unmount } = renderChat();
    act(() => result.current.send({ message: 'Long one', mode: 'general' }));
    await waitFor(() => expect(result.current.state.messages[1]?.content).toBe('Streaming…'));
    unmount();
    await disconnected;
  });
});
