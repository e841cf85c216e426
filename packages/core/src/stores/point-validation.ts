/**
 * Checks both stores apply before touching data, so a malformed point or query
 * fails the same way on the embedded store as it would at Qdrant's door.
 */
import { DocsChatError } from '../errors.js';
import type { HybridQuery, IndexedPoint, SparseVector } from './vector-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Qdrant accepts UUIDs (and unsigned integers, which chunks never use) as point ids. */
export function isPointId(id: string): boolean {
  return UUID.test(id);
}

/** Why a sparse vector would be refused (Qdrant's rules: equal lengths, unique uint32 indices, finite values), or null. */
export function sparseVectorProblem(vector: SparseVector): string | null {
  if (vector.indices.length !== vector.values.length) {
    return `sparse vector has ${vector.indices.length} indices but ${vector.values.length} values`;
  }
  const seen = new Set<number>();
  for (let i = 0; i < vector.indices.length; i++) {
    const index = vector.indices[i] as number;
    if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) return `sparse index ${index} is not an unsigned 32-bit integer`;
    if (seen.has(index)) return `sparse index ${index} appears twice (indices must be unique)`;
    seen.add(index);
    if (!Number.isFinite(vector.values[i])) return `sparse value for index ${index} is not a finite number`;
  }
  return null;
}

export function assertValidPoints(points: readonly IndexedPoint[], dimensions: number): void {
  for (const point of points) {
    if (!isPointId(point.id)) {
      throw new DocsChatError('store_rejected', `Chunk id "${point.id}" is not a UUID; the store only accepts UUID point ids.`, {
        hint: 'Chunk ids come from the chunker (UUIDv5); re-run the ingest so they are regenerated.',
      });
    }
    if (point.dense.length !== dimensions) {
      throw new DocsChatError(
        'index_mismatch',
        `Chunk ${point.id} has a ${point.dense.length}-dimensional vector but the index holds ${dimensions} dimensions.`,
        { hint: 'The embedder changed since the index was built: re-ingest with --rebuild.' },
      );
    }
    const problem = sparseVectorProblem(point.sparse);
    if (problem) throw new DocsChatError('store_rejected', `Chunk ${point.id}: ${problem}.`);
  }
}

export function assertValidQuery(query: HybridQuery, dimensions: number): void {
  if (!Number.isInteger(query.limit) || query.limit < 1) {
    throw new DocsChatError('query_invalid', `Search limit must be a positive integer (got ${query.limit}).`);
  }
  if (!Number.isInteger(query.prefetchLimit) || query.prefetchLimit < query.limit) {
    throw new DocsChatError(
      'query_invalid',
      `Prefetch limit (${query.prefetchLimit}) must be an integer no smaller than the result limit (${query.limit}).`,
    );
  }
  if (query.dense.length !== dimensions) {
    throw new DocsChatError('index_mismatch', `The query vector has ${query.dense.length} dimensions but the index holds ${dimensions}.`, {
      hint: 'The configured embedder differs from the one that built the index: re-ingest with --rebuild or restore the embedder settings.',
    });
  }
  const problem = sparseVectorProblem(query.sparse);
  if (problem) throw new DocsChatError('query_invalid', `Query ${problem}.`);
}
