import { useCallback, useRef } from 'react';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import useGlobalData from '@docusaurus/useGlobalData';
import { activeDocsVersion, type ReaderScope } from '../chat-client/reader-scope.js';

/**
 * Reads, when called, the docs version of the page the reader is on and the site's current locale.
 * The getter keeps one identity per locale (the global data is read through a ref), so hooks that
 * depend on it do not start over on every render.
 */
export function useReaderScope(): () => ReaderScope {
  const { i18n } = useDocusaurusContext();
  const globalData = useRef<Record<string, unknown>>({});
  globalData.current = useGlobalData();
  const locale = i18n?.currentLocale;
  return useCallback(() => {
    const pathname = typeof window === 'undefined' ? '' : window.location.pathname;
    const docs = globalData.current['docusaurus-plugin-content-docs'] as Record<string, unknown> | undefined;
    return { ...activeDocsVersion(docs, pathname), ...(locale ? { locale } : {}) };
  }, [locale]);
}
