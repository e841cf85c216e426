/** The reader's last searches, kept in localStorage so they survive page loads; never sent anywhere. */

export const RECENT_SEARCHES_STORAGE_KEY = 'docs-chat:recent-searches';
export const MAX_RECENT_SEARCHES = 5;
const MAX_STORED_QUERY_CHARS = 200;

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null; // storage disabled (privacy settings, sandboxed iframe)
  }
}

export function readRecentSearches(): string[] {
  try {
    const parsed: unknown = JSON.parse(storage()?.getItem(RECENT_SEARCHES_STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '').slice(0, MAX_RECENT_SEARCHES)
      : [];
  } catch {
    return [];
  }
}

/** Puts a query first (once), keeping the newest MAX_RECENT_SEARCHES; returns the new list. */
export function rememberSearch(query: string): string[] {
  const trimmed = query.trim().slice(0, MAX_STORED_QUERY_CHARS);
  if (trimmed === '') return readRecentSearches();
  const next = [trimmed, ...readRecentSearches().filter((entry) => entry.toLowerCase() !== trimmed.toLowerCase())].slice(
    0,
    MAX_RECENT_SEARCHES,
  );
  try {
    storage()?.setItem(RECENT_SEARCHES_STORAGE_KEY, JSON.stringify(next));
  } catch {
    // full or disabled: the list just is not kept
  }
  return next;
}

export function clearRecentSearches(): void {
  try {
    storage()?.removeItem(RECENT_SEARCHES_STORAGE_KEY);
  } catch {
    // nothing to clear
  }
}
