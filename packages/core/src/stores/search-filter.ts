/**
 * One reading of `SearchFilter` for every backend. `filePrefix` names a docs
 * folder: Qdrant can only match it exactly against an indexed keyword list of
 * the file's folder prefixes (full-text `match: {text}` tokenises into words,
 * so `tutorials/` would also hit `old-tutorials/`), so the embedded store
 * applies the same folder semantics instead of a raw `startsWith`.
 */
import type { SearchFilter } from './vector-store.js';

/** `tutorials`, `./tutorials/` and `/tutorials` all become `tutorials/`; empty means no restriction. */
export function normaliseFilePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '');
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

/** A predicate over (file, docId), built once per query. */
export function compileFilter(filter: SearchFilter | undefined): ((file: string, docId: string) => boolean) | null {
  if (!filter) return null;
  const prefix = filter.filePrefix === undefined ? '' : normaliseFilePrefix(filter.filePrefix);
  const files = filter.files ? new Set(filter.files) : null;
  const docIds = filter.docIds ? new Set(filter.docIds) : null;
  if (!prefix && !files && !docIds) return null;
  return (file, docId) =>
    (!prefix || file.startsWith(prefix)) && (!files || files.has(file)) && (!docIds || docIds.has(docId));
}
