import { describe, expect, it } from '@jest/globals';
import { act, renderHook, waitFor } from '@testing-library/react';
// The Node build of the server renderer, as Docusaurus uses when it renders pages at build time.
import { renderToString } from 'react-dom/server.node';
import { CONVERSATION_STORAGE_KEY, useConversationPersistence } from './use-conversation-persistence.js';

const ID = '7f0c6a52-3f1e-4d2b-9a57-2d7f4c1e8b90';

describe('useConversationPersistence', () => {
  it('reads the saved conversation id after mounting', async () => {
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: ID, savedAt: '2026-11-21T10:00:00Z' }));
    const { result } = renderHook(() => useConversationPersistence());
    await waitFor(() => expect(result.current.ready).toBe(true));
    expect(result.current.savedConversationId).toBe(ID);
  });

  it('saves and clears the id', async () => {
    const { result } = renderHook(() => useConversationPersistence());
    await waitFor(() => expect(result.current.ready).toBe(true));
    act(() => result.current.save(ID));
    expect(JSON.parse(window.localStorage.getItem(CONVERSATION_STORAGE_KEY) ?? '{}')).toMatchObject({ id: ID });
    expect(result.current.savedConversationId).toBe(ID);
    act(() => result.current.clear());
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
    expect(result.current.savedConversationId).toBeNull();
  });

  it('treats a corrupt or foreign entry as nothing saved', async () => {
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, '{not json');
    const corrupt = renderHook(() => useConversationPersistence());
    await waitFor(() => expect(corrupt.result.current.ready).toBe(true));
    expect(corrupt.result.current.savedConversationId).toBeNull();
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: '../../admin' }));
    const foreign = renderHook(() => useConversationPersistence());
    await waitFor(() => expect(foreign.result.current.ready).toBe(true));
    expect(foreign.result.current.savedConversationId).toBeNull();
  });

  it('refuses to save something that is not a conversation id', async () => {
    const { result } = renderHook(() => useConversationPersistence());
    act(() => result.current.save('not-a-uuid'));
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
  });

  it('does not touch localStorage while rendering on the server', () => {
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: ID, savedAt: '' }));
    function Probe() {
      const { savedConversationId, ready } = useConversationPersistence();
      return <p>{`${String(ready)}:${savedConversationId ?? 'none'}`}</p>;
    }
    expect(renderToString(<Probe />)).toBe('<p>false:none</p>');
  });
});
