import { useEffect, type RefObject } from 'react';

/**
 * Both jobs use small, widely used libraries: aria-hidden's suppressOthers (inert where the
 * browser supports it, aria-hidden elsewhere) and focus-trap, which knows which elements are
 * tabbable. They are fetched the first time the panel goes full screen: wider screens, where
 * the panel is never modal, do not pay their 7 KB (gzip; eval/src/bench-bundle.ts).
 */
const loadModalTools = () => Promise.all([import('aria-hidden'), import('focus-trap')]);

/**
 * While `active` (the full-screen panel on a phone), the panel is a modal dialog: everything
 * else in the page is inert (no focus, no clicks, hidden from screen readers' virtual cursor)
 * and Tab cycles through the panel's controls.
 */
export function useModalPanel(panelRef: RefObject<HTMLElement | null>, active: boolean, options: { preload?: boolean } = {}): void {
  // At full-screen widths, fetch the tools before the panel opens, so it is modal at once.
  const { preload = false } = options;
  useEffect(() => {
    if (preload) void loadModalTools();
  }, [preload]);

  useEffect(() => {
    const panel = panelRef.current;
    if (!active || !panel) return undefined;
    let release: (() => void) | null = null;
    let cancelled = false;
    void loadModalTools().then(([{ suppressOthers }, { createFocusTrap }]) => {
      if (cancelled || !panel.isConnected) return;
      const undoSuppress = suppressOthers(panel);
      const trap = createFocusTrap(panel, {
        // The panel moves focus itself (the question box on opening, a heading after a source).
        initialFocus: false,
        fallbackFocus: panel,
        returnFocusOnDeactivate: false,
        // Escape is the panel's own: it closes the panel and hands focus back to the launcher.
        escapeDeactivates: false,
        allowOutsideClick: true,
        preventScroll: true,
      });
      trap.activate();
      release = () => {
        trap.deactivate();
        undoSuppress();
      };
    });
    return () => {
      cancelled = true;
      release?.();
    };
  }, [active, panelRef]);
}
