import { useMemo } from 'react';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { createSearchClient, type SearchClient } from '../search-client/search-client.js';
import { SEARCH_FILES_FOLDER, SEARCH_MANIFEST_FILE } from '../static-search/index-format.js';
import { useDocsChatSettings } from './use-docs-chat-settings.js';
import { useReaderScope } from './use-reader-scope.js';

/** The page's search client: the configured server first, the build's static index when it does not answer. */
export function useSearchClient(fetchImpl?: typeof fetch): SearchClient {
  const settings = useDocsChatSettings();
  const manifestUrl = useBaseUrl(`/${SEARCH_FILES_FOLDER}/${SEARCH_MANIFEST_FILE}`);
  const staticIndex = settings.search?.staticIndex ?? false;
  const getScope = useReaderScope();
  return useMemo(
    () =>
      createSearchClient({
        serverUrl: settings.serverUrl === '' ? null : settings.serverUrl,
        manifestUrl: staticIndex ? manifestUrl : null,
        getScope,
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      }),
    [settings.serverUrl, staticIndex, manifestUrl, fetchImpl, getScope],
  );
}
