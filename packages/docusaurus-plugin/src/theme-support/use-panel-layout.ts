import { useEffect, useState } from 'react';

/**
 * How the open panel shares the screen with the page:
 * - 'full-screen' on phones (600 px and less): the panel is the page for now, a modal dialog;
 * - 'push' where the page keeps enough room beside the panel: the page reflows beside it;
 * - 'overlay' in between: the panel lies over the side of the page, below the navbar.
 *
 * Why not always push: Docusaurus' breakpoints see the whole viewport, not the room left
 * beside the panel, so a pushed page keeps its desktop layout (300 px sidebar, table of
 * contents) in too little room and squeezes the article to a narrow column.
 */
export type PanelLayout = 'full-screen' | 'overlay' | 'push';

/** Phones: the same breakpoint as the panel's CSS. */
export const FULL_SCREEN_MAX_WIDTH = 600;
/**
 * Room the page needs beside the panel to stay in push mode: with the classic theme's docs
 * layout (300 px sidebar, table of contents taking a quarter), 1200 px leave the article
 * about 600 px wide.
 */
export const PAGE_MIN_WIDTH_BESIDE_PANEL = 1200;

function layoutFor(panelWidth: number): PanelLayout {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return 'overlay';
  if (window.matchMedia(`(max-width: ${FULL_SCREEN_MAX_WIDTH}px)`).matches) return 'full-screen';
  if (window.matchMedia(`(min-width: ${panelWidth + PAGE_MIN_WIDTH_BESIDE_PANEL}px)`).matches) return 'push';
  return 'overlay';
}

/**
 * The panel's layout for the current viewport, following resizes and rotations. While the
 * panel is open, <html> carries `data-docs-chat-layout` and `data-docs-chat-panel` (its side),
 * which the panel's global CSS reads to make room for it in push mode.
 */
export function usePanelLayout(open: boolean, side: 'left' | 'right', panelWidth: number): PanelLayout {
  const [layout, setLayout] = useState<PanelLayout>('overlay');

  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return undefined;
    const update = (): void => setLayout(layoutFor(panelWidth));
    update();
    const queries = [`(max-width: ${FULL_SCREEN_MAX_WIDTH}px)`, `(min-width: ${panelWidth + PAGE_MIN_WIDTH_BESIDE_PANEL}px)`].map((query) =>
      window.matchMedia(query),
    );
    for (const query of queries) query.addEventListener('change', update);
    return () => {
      for (const query of queries) query.removeEventListener('change', update);
    };
  }, [panelWidth]);

  useEffect(() => {
    if (!open) return undefined;
    const root = document.documentElement;
    root.style.setProperty('--docs-chat-panel-width', `${panelWidth}px`);
    root.dataset.docsChatPanel = side;
    root.dataset.docsChatLayout = layout;
    return () => {
      delete root.dataset.docsChatPanel;
      delete root.dataset.docsChatLayout;
    };
  }, [open, side, panelWidth, layout]);

  return layout;
}
