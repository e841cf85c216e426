import { useCallback } from 'react';
import { useHistory } from '@docusaurus/router';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import { useBaseUrlUtils } from '@docusaurus/useBaseUrl';
import { applyTrailingSlash } from '@docusaurus/utils-common';
import { toSiteHref } from '../chat-client/site-href.js';

/**
 * Goes to a search result the way `@docusaurus/Link` would: within the site
 * through the router (no reload; the router scrolls to the anchor) with the
 * site's base URL and trailing-slash setting applied (the index and the server
 * hold doc permalinks, which have neither trailing slash nor, from a server
 * indexed without the build's permalinks, the base URL); elsewhere by plain navigation.
 */
export function useOpenResult(): (url: string) => void {
  const history = useHistory();
  const { withBaseUrl } = useBaseUrlUtils();
  const { siteConfig } = useDocusaurusContext();
  const { trailingSlash, baseUrl } = siteConfig;
  return useCallback(
    (url: string) => {
      const { href, internal } = toSiteHref(url);
      if (internal) history.push(applyTrailingSlash(withBaseUrl(href), { trailingSlash, baseUrl }));
      else window.location.assign(href);
    },
    [history, withBaseUrl, trailingSlash, baseUrl],
  );
}
