import { useCallback, useEffect, useState } from 'react';
import { isUuid } from '@docs-chat/protocol';

export const CONVERSATION_STORAGE_KEY = 'docs-chat:conversation';

interface StoredPointer {
  id: string;
  savedAt: string;
}

function readPointer(storage: Storage | null, key: string): string | null {
  try {
    const raw = storage?.getItem(key);
    if (!raw) return null;
    const pointer = JSON.parse(raw) as Partial<StoredPointer>;
    return isUuid(pointer.id) ? pointer.id : null;
  } catch {
    return null; // Corrupt entry or storage blocked (private mode): behave as if nothing was saved.
  }
}

function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export interface ConversationPersistence {
  /** The saved conversation id; null until read on the client (never read while rendering on the server). */
  savedConversationId: string | null;
  /** True once localStorage has been read. */
  ready: boolean;
  save: (conversationId: string) => void;
  clear: () => void;
}

/** Keeps the id of the reader's last conversation in localStorage so it can be resumed. */
export function useConversationPersistence(key: string = CONVERSATION_STORAGE_KEY): ConversationPersistence {
  const [savedConversationId, setSaved] = useState<string | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    setSaved(readPointer(browserStorage(), key));
    setReady(true);
  }, [key]);

  const save = useCallback(
    (conversationId: string) => {
      if (!isUuid(conversationId)) return;
      try {
        browserStorage()?.setItem(key, JSON.stringify({ id: conversationId, savedAt: new Date().toISOString() } satisfies StoredPointer));
      } catch {
        // Storage full or blocked: the conversation simply cannot be resumed later.
      }
      setSaved(conversationId);
    },
    [key],
  );

  const clear = useCallback(() => {
    try {
      browserStorage()?.removeItem(key);
    } catch {
      // Nothing to do: storage is unavailable.
    }
    setSaved(null);
  }, [key]);

  return { savedConversationId, ready, save, clear };
}
