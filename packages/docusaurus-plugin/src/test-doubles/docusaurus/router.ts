import { useSyncExternalStore } from 'react';

// Test double of @docusaurus/router: history.push moves the jsdom location without a reload,
// as the site's router does, so tests can see where a search result took the reader; components
// reading useLocation render again, as they do when the site's router changes page.
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

// In Node (the build's server rendering) the site's StaticRouter gives the page being rendered.
let serverPath = '/';
const currentPath = (): string => (typeof window === 'undefined' ? serverPath : window.location.pathname);

/** The page a server-rendering test renders (StaticRouter's location at build). */
export function setServerPathForTest(path: string): void {
  serverPath = path;
}

export function useHistory(): { push: (path: string) => void } {
  return { push: navigateForTest };
}

export function useLocation(): { pathname: string; search: string; hash: string } {
  const pathname = useSyncExternalStore(subscribe, currentPath, currentPath);
  if (typeof window === 'undefined') return { pathname, search: '', hash: '' };
  return { pathname, search: window.location.search, hash: window.location.hash };
}

/** Moves to another page of the site the way a client-side link does (no reload). */
export function navigateForTest(path: string): void {
  window.history.pushState({}, '', path);
  notify();
}
