import { useMemo } from 'react';
import { useLocation } from '@docusaurus/router';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import { matchesRoutePatterns, pathWithinSite } from '../chat-client/launcher-routes.js';

/** Whether the page the reader is on is one where the site keeps the launcher out of sight (`hideLauncherOn`). */
export function useLauncherHidden(patternSources: readonly string[] | undefined): boolean {
  const { pathname } = useLocation();
  const { siteConfig } = useDocusaurusContext();
  return useMemo(
    () => (patternSources?.length ? matchesRoutePatterns(pathWithinSite(pathname, siteConfig.baseUrl), patternSources) : false),
    [pathname, siteConfig.baseUrl, patternSources],
  );
}
