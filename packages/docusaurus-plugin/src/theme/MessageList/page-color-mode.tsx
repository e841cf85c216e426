import { useCallback, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useColorMode } from '@docusaurus/theme-common';
import { ColorModeProvider } from '@docusaurus/theme-common/internal';

/*
 * The widget lives in the plugin's Root, above the theme's Layout and so above
 * its ColorModeProvider, but the site's CodeBlock reads useColorMode(). This
 * gives the answers a ColorModeProvider of their own that follows the page.
 *
 * Why no writes: the provider's setColorMode also rewrites <html data-theme-choice>
 * and localStorage, so calling it to mirror the page could turn a reader's
 * "system" choice into an explicit one. Instead we rely on what the provider
 * does by itself (Docusaurus dispatches a same-window storage event when the
 * navbar toggle saves the choice, and the provider follows the system
 * preference), and when <html data-theme> changes in a way it did not see
 * (storage disabled, a site script), we remount it: a fresh provider reads
 * data-theme from the document on its first render.
 */

type PageColorMode = 'light' | 'dark';

function readPageColorMode(): PageColorMode {
  return document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
}

function subscribeToPageColorMode(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => observer.disconnect();
}

/** The page's colour mode as <html data-theme> says; null while rendering on the server. */
function usePageColorMode(): PageColorMode | null {
  return useSyncExternalStore(subscribeToPageColorMode, readPageColorMode, () => null);
}

function FollowPage({
  pageMode,
  onBehind,
  children,
}: {
  pageMode: PageColorMode | null;
  onBehind: () => void;
  children: ReactNode;
}): ReactNode {
  const { colorMode } = useColorMode();
  useEffect(() => {
    if (pageMode === null || pageMode === colorMode) return undefined;
    // Give the provider's own listeners the chance to catch up first (they usually
    // render in the same pass); only a mode it still has not adopted costs a remount.
    const timer = setTimeout(onBehind, 50);
    return () => clearTimeout(timer);
  }, [pageMode, colorMode, onBehind]);
  return children;
}

/** Lets theme components that need the colour mode (the site's CodeBlock) render inside the widget. */
export default function PageColorModeProvider({ children }: { children: ReactNode }): ReactNode {
  const pageMode = usePageColorMode();
  const [generation, setGeneration] = useState(0);
  const remount = useCallback(() => setGeneration((value) => value + 1), []);
  return (
    <ColorModeProvider key={generation}>
      <FollowPage pageMode={pageMode} onBehind={remount}>
        {children}
      </FollowPage>
    </ColorModeProvider>
  );
}
