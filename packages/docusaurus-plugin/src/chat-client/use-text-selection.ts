import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

/** A selection in the page content, with where it sits on screen (null where layout is unknown). */
export interface PageSelection {
  text: string;
  rect: { top: number; left: number; bottom: number; right: number } | null;
}

export interface UseTextSelectionOptions {
  enabled: boolean;
  /** CSS selector of the page content; selections elsewhere (navbar, sidebar) are ignored. */
  contentSelector: string;
  /** The widget's own element: selecting text in answers must not count. */
  ignoreInside: RefObject<HTMLElement | null>;
  /** Shorter selections are ignored (a stray double-click). */
  minLength?: number;
  /** Waits this long after the last change, so dragging does not re-render on every pixel. */
  debounceMs?: number;
}

function elementOf(node: Node | null): Element | null {
  if (!node) return null;
  return node.nodeType === Node.ELEMENT_NODE ? (node as Element) : node.parentElement;
}

function readSelection(options: UseTextSelectionOptions): PageSelection | null {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
  const text = selection.toString().trim();
  if (text.length < (options.minLength ?? 3)) return null;
  const range = selection.getRangeAt(0);
  const container = elementOf(range.commonAncestorContainer);
  if (!container) return null;
  const widget = options.ignoreInside.current;
  if (widget && (widget.contains(container) || widget.contains(elementOf(selection.anchorNode)))) return null;
  let content: Element | null = null;
  try {
    content = container.closest(options.contentSelector);
  } catch {
    content = null; // An invalid selector was configured; the option validation should have caught it.
  }
  if (!content) return null;
  // jsdom and some old browsers have no Range geometry.
  const box = typeof range.getBoundingClientRect === 'function' ? range.getBoundingClientRect() : null;
  const rect = box && (box.width > 0 || box.height > 0) ? { top: box.top, left: box.left, bottom: box.bottom, right: box.right } : null;
  return { text, rect };
}

/**
 * Follows what the reader selects in the page content, by mouse or keyboard
 * (`selectionchange` covers both). Listens only on the client, in an effect.
 */
export function useTextSelection(options: UseTextSelectionOptions): { selection: PageSelection | null; clear: () => void } {
  const [selection, setSelection] = useState<PageSelection | null>(null);
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const { enabled, debounceMs = 200 } = options;

  useEffect(() => {
    if (!enabled) {
      setSelection(null);
      return undefined;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const update = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const next = readSelection(optionsRef.current);
        setSelection((previous) => {
          // A selection collapsing because focus moved into the widget must keep the offer visible.
          if (next === null && previous !== null) {
            const active = document.activeElement;
            const widget = optionsRef.current.ignoreInside.current;
            if (widget && active && widget.contains(active)) return previous;
          }
          if (previous && next && previous.text === next.text && previous.rect?.top === next.rect?.top) return previous;
          return next;
        });
      }, debounceMs);
    };
    document.addEventListener('selectionchange', update);
    // Some engines skip selectionchange for programmatic or drag selections; mouseup/keyup catch those.
    document.addEventListener('mouseup', update);
    document.addEventListener('keyup', update);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('selectionchange', update);
      document.removeEventListener('mouseup', update);
      document.removeEventListener('keyup', update);
    };
  }, [enabled, debounceMs]);

  const clear = useCallback(() => setSelection(null), []);
  return { selection, clear };
}
