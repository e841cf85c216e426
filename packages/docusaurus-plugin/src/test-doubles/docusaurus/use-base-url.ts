// Test double of @docusaurus/useBaseUrl: the base URL of the test site configuration, and a URL
// that already starts with it is left as it is (as Docusaurus does).
import { testSiteConfig } from './site-config.js';

function withBaseUrl(url: string): string {
  const { baseUrl } = testSiteConfig;
  if (!url || url.startsWith('#') || /^[a-z][a-z\d+.-]*:/i.test(url) || url.startsWith('//')) return url;
  return url.startsWith(baseUrl) ? url : baseUrl + url.replace(/^\//, '');
}

export function useBaseUrlUtils(): { withBaseUrl: (url: string) => string } {
  return { withBaseUrl };
}

export default function useBaseUrl(url: string): string {
  return withBaseUrl(url);
}
