import { describe, expect, it } from '@jest/globals';
import { describeShortcut, matchesShortcut, parseShortcut } from './keyboard-shortcut.js';

const key = (overrides: Partial<KeyboardEvent>) =>
  ({ key: 'i', code: 'KeyI', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...overrides }) as KeyboardEvent;

describe('keyboard shortcuts', () => {
  it('maps "mod" to Ctrl on Windows and Linux and to Cmd on Apple platforms', () => {
    const pc = parseShortcut('mod+i', false);
    const mac = parseShortcut('mod+i', true);
    expect(pc && matchesShortcut(key({ ctrlKey: true }), pc)).toBe(true);
    expect(pc && matchesShortcut(key({ metaKey: true }), pc)).toBe(false);
    expect(mac && matchesShortcut(key({ metaKey: true }), mac)).toBe(true);
    expect(mac && matchesShortcut(key({ ctrlKey: true }), mac)).toBe(false);
  });

  it('requires exactly the configured modifiers', () => {
    const shortcut = parseShortcut('ctrl+shift+k', false);
    expect(shortcut && matchesShortcut(key({ key: 'K', code: 'KeyK', ctrlKey: true, shiftKey: true }), shortcut)).toBe(true);
    expect(shortcut && matchesShortcut(key({ key: 'k', code: 'KeyK', ctrlKey: true }), shortcut)).toBe(false);
  });

  it('recognises the key by its position when a layout or Alt changes the character', () => {
    const shortcut = parseShortcut('alt+i', false);
    expect(shortcut && matchesShortcut(key({ key: 'ˆ', altKey: true }), shortcut)).toBe(true);
  });

  it('rejects shortcuts without a modifier or with unknown ones', () => {
    expect(parseShortcut('i', false)).toBeNull();
    expect(parseShortcut('hyper+i', false)).toBeNull();
  });

  it('describes the shortcut the way each platform writes it', () => {
    expect(describeShortcut('mod+i', false)).toBe('Ctrl+I');
    expect(describeShortcut('mod+shift+k', true)).toBe('⌘⇧K');
    expect(describeShortcut('alt+/', false)).toBe('Alt+/');
  });
});
