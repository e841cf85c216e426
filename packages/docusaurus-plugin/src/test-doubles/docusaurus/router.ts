// Test double of @docusaurus/router: history.push moves the jsdom location without a reload,
// as the site's router does, so tests can see where a search result took the reader.
export function useHistory(): { push: (path: string) => void } {
  return { push: (path: string) => window.history.pushState({}, '', path) };
}
