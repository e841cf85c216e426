/**
 * The profile as the index records it: the hashes of retrieval-profile.ts,
 * with the word lists that live in their own modules. The ingest compares the
 * recorded hashes with the current ones to know what to redo; search refuses an
 * index whose chunks or vectors came from another profile.
 */
import { createHash } from 'node:crypto';
import { DocsChatError } from '../errors.js';
import { COMMON_ACRONYMS } from '../search/scope-check.js';
import { BUILT_IN_SYNONYMS } from '../text/synonyms.js';
import { ANALYZER_VERSION, STOP_WORDS } from '../text/text-analysis.js';
import { profileHashes, type ProfileHashes, type RetrievalProfile } from './retrieval-profile.js';

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

export function indexProfileHashes(profile: RetrievalProfile): ProfileHashes {
  return profileHashes(profile, {
    analyzer: digest([ANALYZER_VERSION, [...STOP_WORDS].sort()]),
    search: digest([BUILT_IN_SYNONYMS, [...COMMON_ACRONYMS].sort()]),
  });
}

/** Hashes recorded in `IndexMeta.extra.profile`, or null for an index from before profiles. */
export function readProfileHashes(extra: Record<string, unknown> | undefined): ProfileHashes | null {
  const stored = extra?.profile as Partial<ProfileHashes> | undefined;
  if (!stored || typeof stored !== 'object') return null;
  const keys: (keyof ProfileHashes)[] = ['chunking', 'sparse', 'dense', 'search', 'profile'];
  return keys.every((key) => typeof stored[key] === 'string') ? (stored as ProfileHashes) : null;
}

/** What an index built under `stored` lacks for `wanted`, as words an admin reads; empty when searchable as it is. */
export function staleProfileParts(stored: ProfileHashes | null, wanted: ProfileHashes): string[] {
  if (!stored) return ['the index predates retrieval profiles'];
  const parts: string[] = [];
  if (stored.chunking !== wanted.chunking) parts.push('chunking');
  if (stored.sparse !== wanted.sparse) parts.push('sparse (BM25) encoding');
  if (stored.dense !== wanted.dense) parts.push('the text the embedder sees');
  return parts;
}

export function staleProfileError(where: string, parts: string[]): DocsChatError {
  return new DocsChatError('index_mismatch', `The index ${where} was built with another retrieval profile (${parts.join(', ')}).`, {
    hint: 'Re-run `pnpm docs-chat ingest`: it redoes only what the profile changed (no --rebuild needed, and unchanged embeddings come from the cache).',
  });
}
