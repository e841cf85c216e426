/**
 * One reading of `SearchFilter` for every backend. `filePrefix` names a docs
 * folder: Qdrant can only match it exactly against an indexed keyword list of
 * the file's folder prefixes (full-text `match: {text}` tokenises into words,
 * so `tutorials/` would also hit `old-tutorials/`), so the embedded store
 * applies the same folder semantics instead of a raw `startsWith`.
 */
import type { SearchFilter } from './vector-store.js';
import { scopeOfFileKey } from '../ingest/site-layout.js';

/** `tutorials`, `./tutorials/` and `/tutorials` all become `tutorials/`; empty means no restriction. */
export function normaliseFilePrefix(prefix: string): string {
  const trimmed = prefix
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/|\/)+/, '');
  if (trimmed === '') return '';
  return trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** Folder prefixes of a docs file, outermost first: `a/b/c.md` -> `['a/', 'a/b/']`. */
export function folderPrefixes(file: string): string[] {
  const parts = file.split('/');
  const prefixes: string[] = [];
  let current = '';
  for (let i = 0; i < parts.length - 1; i++) {
    current += `${parts[i]}/`;
    prefixes.push(current);
  }
  return prefixes;
}

/** True when the filter can match nothing (an empty `files` or `docIds` list), so no search is needed. */
export function filterExcludesEverything(filter: SearchFilter | undefined): boolean {
  return filter?.files?.length === 0 || filter?.docIds?.length === 0;
}

/** The `instance:version` and locale keys of a file key, '' for a plain docs folder's (which every scope filter passes). */
export interface ScopeKeys {
  version: string;
  locale: string;
}

const UNSCOPED: ScopeKeys = { version: '', locale: '' };
// File keys are few (one per page) and come back query after query: parse each once.
const scopeKeyCache = new Map<string, ScopeKeys>();

export function scopeKeysOf(file: string): ScopeKeys {
  let keys = scopeKeyCache.get(file);
  if (keys === undefined) {
    const scope = scopeOfFileKey(file);
    keys = scope ? { version: `${scope.instance}:${scope.version}`, locale: scope.locale } : UNSCOPED;
    if (scopeKeyCache.size > 200_000) scopeKeyCache.clear();
    scopeKeyCache.set(file, keys);
  }
  return keys;
}

type FilterPredicate = (file: string, docId: string) => boolean;
// The same filter (a reader's version and locale) comes back question after question: one predicate per
// distinct filter lets a store keep its verdicts (embedded-store.ts).
const compiledFilters = new Map<string, FilterPredicate | null>();

/** A predicate over (file, docId); the same object for equal filters asked again. */
export function compileFilter(filter: SearchFilter | undefined): FilterPredicate | null {
  if (!filter) return null;
  const key = JSON.stringify(filter);
  if (compiledFilters.has(key)) return compiledFilters.get(key) ?? null;
  const predicate = buildFilter(filter);
  if (compiledFilters.size >= 64) compiledFilters.delete(compiledFilters.keys().next().value as string);
  compiledFilters.set(key, predicate);
  return predicate;
}

function buildFilter(filter: SearchFilter): FilterPredicate | null {
  const prefix = filter.filePrefix === undefined ? '' : normaliseFilePrefix(filter.filePrefix);
  const files = filter.files ? new Set(filter.files) : null;
  const docIds = filter.docIds ? new Set(filter.docIds) : null;
  const versions = filter.versions ? new Set(['', ...filter.versions]) : null;
  const locales = filter.locales ? new Set(['', ...filter.locales]) : null;
  if (!prefix && !files && !docIds && !versions && !locales) return null;
  const scoped = versions !== null || locales !== null;
  if (filter.versions && filter.locales && !prefix && !files && !docIds) {
    // The common case (a reader's question): a few whole key prefixes, compared in place. Measured on
    // 50,000 chunks this keeps the filter's cost on the p95 under the 2 ms budget (scope-filter.bench.ts).
    const prefixes = filter.versions.flatMap((version) => (filter.locales ?? []).map((locale) => `site:${version}:${locale}/`));
    return (file) => {
      if (!file.startsWith('site:')) return true;
      for (const allowed of prefixes) if (file.startsWith(allowed)) return true;
      return false;
    };
  }
  return (file, docId) => {
    if ((prefix && !file.startsWith(prefix)) || (files && !files.has(file)) || (docIds && !docIds.has(docId))) return false;
    if (!scoped) return true;
    const keys = scopeKeysOf(file);
    return (!versions || versions.has(keys.version)) && (!locales || locales.has(keys.locale));
  };
}
