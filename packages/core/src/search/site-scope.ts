/**
 * Which part of a site a search looks in: the reader's docs version and
 * locale (or, without them, the version served at the route base and the
 * default locale), unless the question names another version of the docs,
 * which then wins and is reported so the answer can say where it comes from.
 */
import type { SiteSummary, SiteVersionInfo } from '../ingest/site-layout.js';
import { BLOG_INSTANCE, CURRENT_VERSION, DEFAULT_DOCS_INSTANCE } from '../ingest/site-layout.js';
import type { SearchFilter } from '../stores/vector-store.js';

export interface RequestedScope {
  /** Docs version name as Docusaurus names it (`current`, `2.0`). */
  version?: string;
  locale?: string;
  /** Docs plugin id the version belongs to (`default` when unset). */
  instance?: string;
}

/** The scope a search used. */
export interface AppliedScope {
  instance: string;
  version: string;
  /** The version's label (`Next` for the current docs). */
  versionLabel: string;
  locale: string;
  /** The version the reader is on, when the question named another one and that one was searched. */
  readerVersion?: string;
  /** That version's label. */
  readerVersionLabel?: string;
  /** Asked values that the index does not hold, ignored (with the reason). */
  ignored: string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A version the question names: "version 1.0", "v1.0", "1.0 docs", a bare dotted "1.0"/"1.x", or "next"/"the current docs" for the current one. */
export function versionNamedIn(question: string, versions: SiteVersionInfo[]): SiteVersionInfo | null {
  const text = question.toLowerCase();
  for (const version of versions) {
    if (version.name === CURRENT_VERSION) {
      if (/\b(?:next|unreleased) (?:version|docs|release)\b/.test(text)) return version;
      continue;
    }
    const names = [version.name, ...(version.label !== version.name ? [version.label] : [])].map((name) =>
      escapeRegExp(name.toLowerCase()),
    );
    for (const name of names) {
      const dotted = /^\d+(?:\\\.(?:\d+|x))+$/.test(name);
      const pattern = dotted
        ? new RegExp(`(?:^|[^\\w.])v?${name}(?![\\w]|\\.\\d)`)
        : new RegExp(`\\b(?:version|v|release)\\s*${name}\\b|\\b${name}\\s+(?:docs|version|release)\\b`);
      if (pattern.test(text)) return version;
    }
  }
  return null;
}

/**
 * The filter and the applied scope for a question on a site index. Every other
 * docs instance keeps its own last version, and the blog always passes.
 */
export function resolveSiteScope(
  question: string,
  requested: RequestedScope,
  site: SiteSummary,
): { filter: SearchFilter; scope: AppliedScope } {
  const ignored: string[] = [];
  let instance = requested.instance ?? DEFAULT_DOCS_INSTANCE;
  if (!site.instances.includes(instance)) {
    ignored.push(`docs instance "${instance}" is not in the index (it holds ${site.instances.join(', ')})`);
    instance = site.instances.includes(DEFAULT_DOCS_INSTANCE) ? DEFAULT_DOCS_INSTANCE : (site.instances[0] ?? DEFAULT_DOCS_INSTANCE);
  }
  const ofInstance = site.versions.filter((version) => version.instance === instance);
  const last = ofInstance.find((version) => version.last) ?? ofInstance[0];
  let reader = last;
  if (requested.version !== undefined) {
    const asked = ofInstance.find((version) => version.name === requested.version);
    if (asked) reader = asked;
    else
      ignored.push(`version "${requested.version}" is not in the index (it holds ${ofInstance.map((version) => version.name).join(', ')})`);
  }
  const named = ofInstance.length > 1 ? versionNamedIn(question, ofInstance) : null;
  const searched = named ?? reader;
  let locale = site.defaultLocale;
  if (requested.locale !== undefined) {
    if (site.locales.includes(requested.locale)) locale = requested.locale;
    else ignored.push(`locale "${requested.locale}" is not in the index (it holds ${site.locales.join(', ')})`);
  }
  const versions = [`${BLOG_INSTANCE}:`];
  for (const other of site.instances) {
    if (other === instance) {
      if (searched) versions.push(`${other}:${searched.name}`);
      continue;
    }
    const otherLast = site.versions.find((version) => version.instance === other && version.last);
    if (otherLast) versions.push(`${other}:${otherLast.name}`);
  }
  const scope: AppliedScope = {
    instance,
    version: searched?.name ?? CURRENT_VERSION,
    versionLabel: searched?.label ?? 'Next',
    locale,
    ignored,
  };
  if (named && reader && named.name !== reader.name) {
    scope.readerVersion = reader.name;
    scope.readerVersionLabel = reader.label;
  }
  return { filter: { versions, locales: [locale] }, scope };
}
