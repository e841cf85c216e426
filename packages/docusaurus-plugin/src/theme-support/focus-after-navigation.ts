/**
 * After the reader follows a source with the panel closing behind them (phones), focus goes
 * to the section they asked for, not back to the launcher in the corner: keyboard and
 * screen-reader users continue from the heading. The router renders the new page after the
 * click, so this waits (a few seconds at most) for the URL and the heading to be there.
 */
export function focusTargetAfterNavigation(href: string, timeoutMs = 4000): void {
  if (typeof window === 'undefined') return;
  const target = new URL(href, window.location.href);
  const id = decodeURIComponent(target.hash.slice(1));
  const deadline = Date.now() + timeoutMs;
  const attempt = (): void => {
    const arrived = window.location.pathname === target.pathname;
    const element = id ? document.getElementById(id) : document.querySelector('main h1');
    if (arrived && element instanceof HTMLElement) {
      if (!element.hasAttribute('tabindex')) {
        // Focusable for this one visit; a heading is no control, so it leaves the Tab order again.
        element.setAttribute('tabindex', '-1');
        element.addEventListener('blur', () => element.removeAttribute('tabindex'), { once: true });
      }
      // The router has scrolled the heading into view below the navbar: do not scroll again.
      element.focus({ preventScroll: true });
      return;
    }
    if (Date.now() < deadline) window.requestAnimationFrame(attempt);
  };
  window.requestAnimationFrame(attempt);
}
