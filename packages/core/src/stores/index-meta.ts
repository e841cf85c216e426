/** Deciding whether an existing index can take chunks from the configured embedder. */
import { DocsChatError } from '../errors.js';
import type { IndexMeta } from './vector-store.js';

export const REBUILD_HINT = 'Re-run the ingest with --rebuild (`pnpm docs-chat ingest --rebuild`) to rebuild the index from the docs.';

/** Human-readable differences that make `stored` unusable for `wanted`; empty when compatible. */
export function indexMetaDifferences(stored: IndexMeta, wanted: IndexMeta): string[] {
  const differences: string[] = [];
  if (stored.embedderProvider !== wanted.embedderProvider || stored.embedderModel !== wanted.embedderModel) {
    differences.push(
      `embedder ${stored.embedderProvider}/${stored.embedderModel} (index) vs ${wanted.embedderProvider}/${wanted.embedderModel} (configured)`,
    );
  }
  if (stored.dimensions !== wanted.dimensions) {
    differences.push(`${stored.dimensions} dimensions (index) vs ${wanted.dimensions} (configured)`);
  }
  if (stored.sparseEncoder !== wanted.sparseEncoder) {
    differences.push(`sparse encoder ${stored.sparseEncoder} (index) vs ${wanted.sparseEncoder} (configured)`);
  }
  return differences;
}

export function indexMismatchError(where: string, differences: string[]): DocsChatError {
  return new DocsChatError('index_mismatch', `The index ${where} was built differently: ${differences.join('; ')}.`, {
    hint: REBUILD_HINT,
  });
}

export function indexMissingError(where: string): DocsChatError {
  return new DocsChatError('index_missing', `There is no index ${where} yet.`, {
    hint: 'Build it with `pnpm docs-chat ingest` (add --rebuild to start from scratch).',
  });
}

/** Structural check of meta read back from storage (JSON written by another process or version). */
export function isIndexMeta(value: unknown): value is IndexMeta {
  if (typeof value !== 'object' || value === null) return false;
  const meta = value as Record<string, unknown>;
  return (
    typeof meta.embedderProvider === 'string' &&
    typeof meta.embedderModel === 'string' &&
    typeof meta.dimensions === 'number' &&
    Number.isInteger(meta.dimensions) &&
    meta.dimensions > 0 &&
    typeof meta.sparseEncoder === 'string' &&
    typeof meta.createdAt === 'string'
  );
}
