/** A parsed shortcut such as "mod+i"; `mod` is Cmd on Apple platforms and Ctrl elsewhere. */
export interface KeyboardShortcut {
  key: string;
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
}

export function isApplePlatform(): boolean {
  if (typeof navigator === 'undefined') return false;
  return /mac|iphone|ipad|ipod/i.test(navigator.platform || navigator.userAgent);
}

export function parseShortcut(shortcut: string, apple = isApplePlatform()): KeyboardShortcut | null {
  const parts = shortcut.toLowerCase().split('+');
  const key = parts.pop();
  if (!key || parts.length === 0) return null;
  const parsed: KeyboardShortcut = { key, ctrl: false, meta: false, alt: false, shift: false };
  for (const modifier of parts) {
    if (modifier === 'mod') parsed[apple ? 'meta' : 'ctrl'] = true;
    else if (modifier === 'ctrl' || modifier === 'meta' || modifier === 'alt' || modifier === 'shift') parsed[modifier] = true;
    else return null;
  }
  return parsed;
}

export function matchesShortcut(
  event: Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>,
  shortcut: KeyboardShortcut,
): boolean {
  if (
    event.ctrlKey !== shortcut.ctrl ||
    event.metaKey !== shortcut.meta ||
    event.altKey !== shortcut.alt ||
    event.shiftKey !== shortcut.shift
  ) {
    return false;
  }
  // `code` keeps letters recognisable when Alt or a non-Latin layout changes `key`.
  const codeKey = event.code.startsWith('Key')
    ? event.code.slice(3).toLowerCase()
    : event.code.startsWith('Digit')
      ? event.code.slice(5)
      : null;
  return event.key.toLowerCase() === shortcut.key || codeKey === shortcut.key;
}

/** How to show the shortcut to a reader, e.g. "Ctrl+I" or "⌘I". */
export function describeShortcut(shortcut: string, apple = isApplePlatform()): string {
  const parts = shortcut.toLowerCase().split('+');
  const key = (parts.pop() ?? '').toUpperCase();
  const names = parts.map((modifier) => {
    if (modifier === 'mod') return apple ? '⌘' : 'Ctrl';
    if (modifier === 'meta') return apple ? '⌘' : 'Meta';
    if (modifier === 'alt') return apple ? '⌥' : 'Alt';
    if (modifier === 'shift') return apple ? '⇧' : 'Shift';
    return apple ? '⌃' : 'Ctrl';
  });
  return apple ? `${names.join('')}${key}` : [...names, key].join('+');
}
