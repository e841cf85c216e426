/**
 * The retrieval profile: every number that shapes what retrieval returns, in
 * one typed, versioned place, each with a one-line source saying what it was
 * fitted on (question set, metric, commit) or why it was not fitted.
 *
 * Sections differ in what a change costs, and the index records a hash of
 * each (profileHashes), so a change re-does only what it must:
 * - `chunking`: re-chunks every page (the embedding cache spares unchanged chunk texts);
 * - `sparse`: re-encodes every chunk's BM25 vector, re-embeds nothing;
 * - `dense`: what text of a chunk the embedder sees; re-embeds every chunk;
 * - `ranking`, `scope`, `context`: search time only; nothing is re-indexed
 *   (the out-of-scope thresholds fitted at ingest are re-fitted by the next ingest).
 * Word lists (stop words, thesaurus, common acronyms) live in their own modules
 * for size, and are hashed here with the section they affect.
 *
 * Profiles differ per embedder only where the embedder changes what a value
 * means (the dense cosine's weight and scale); everything else is shared.
 */
import { createHash } from 'node:crypto';

/** Bump when the meaning of a value changes (not when a value changes: the hashes see that). */
export const PROFILE_VERSION = 2;

export interface ChunkingProfile {
  /** Most tokens in one chunk (heading path included). */
  maxTokens: number;
  /** Share of a part repeated at the start of the next one when a section is split. */
  overlapRatio: number;
}

export interface SparseProfile {
  k1: number;
  b: number;
  /** Average analysed length of a chunk body (fixed, so a vector never depends on the rest of the corpus). */
  averageLength: number;
  /** Extra occurrences a term of the section's own heading is worth. */
  headingWeight: number;
  /** ... a term of the page title or a parent heading. */
  parentHeadingWeight: number;
  /** Weight of an adjacent-word pair term. */
  pairWeight: number;
  /** Buckets adjacent pairs are hashed into. */
  pairBuckets: number;
  /** Average analysed length of a whole page. */
  averagePageLength: number;
}

export interface DenseProfile {
  /** Words of a chunk (heading path first) the embedder sees; 0 = the whole chunk. */
  leadWords: number;
}

export interface RankingProfile {
  /** Candidates taken from each list and re-ranked. */
  candidates: number;
  /** BM25 enters as (score / best) ** this. */
  sparseExponent: number;
  /** Weight of the IDF-weighted similarity between the question and the section heading. */
  headingWeight: number;
  /** Weight of the page-level BM25 (divided by the best page). */
  pageWeight: number;
  /** Weight of the dense cosine, rescaled to 0..1 between `denseFloor` and the best cosine. */
  denseWeight: number;
  /** Cosine treated as "no similarity at all" by this embedder (unrelated texts sit about here). */
  denseFloor: number;
  /** Weight of a thesaurus synonym of a question word, relative to 1 for the word itself. */
  synonymWeight: number;
  /** Weight of a learned associate (term-associations.ts). */
  expansionWeight: number;
}

export interface ScopeProfile {
  /** Best sections whose words count as covering the question. */
  coverageSections: number;
  /** Sections searched for a name together with the question's other words. */
  nameContextSections: number;
  /** Words rarer than this IDF count as informative companions of a name. */
  companionMinIdf: number;
  /** Fewest companions a name needs before the lonely-name rule may refuse: with one, "never together" proves little. */
  nameMinCompanions: number;
  /** A name held by at least this many sections is a subject of the docs: the missing-name rule leaves it alone. */
  subjectNameSections: number;
  /** Least share of the question's IDF weight a name must hold for the name rules to refuse it: the question is about it. */
  nameMinShare: number;
  /** In-scope pseudo-questions allowed below a fitted threshold. */
  fitInScopeMissRate: number;
  /** Quantile of the off-topic questions' vocabulary and evidence where those thresholds are fitted. */
  fitLexicalQuantile: number;
  /** 1: fit a threshold on the best dense cosine; 0: no dense rule (an embedder whose cosine is lexical, not semantic). */
  denseRule: number;
  /** Quantile of the off-topic questions' dense cosine the dense threshold goes just above. */
  fitDenseQuantile: number;
  /** How far above that quantile, and how far below the pseudo-questions' low end it must stay to be used at all. */
  fitDenseMargin: number;
  /** The dense rule refuses only a question whose best sections hold less than this share of its words (IDF-weighted). */
  denseVetoCoverage: number;
}

export interface ContextProfile {
  /** Tokens of numbered sources given to the language model. */
  tokenBudget: number;
  /** Longest question the retriever searches with as it is; longer ones are condensed (query-condenser.ts). */
  maxSearchQueryChars: number;
}

export interface RetrievalProfile {
  version: number;
  /** Which embedder this profile is for (`local`, `neural`, `gemini`, `openai`). */
  embedder: string;
  chunking: ChunkingProfile;
  sparse: SparseProfile;
  dense: DenseProfile;
  ranking: RankingProfile;
  scope: ScopeProfile;
  context: ContextProfile;
}

type Sections = Omit<RetrievalProfile, 'version' | 'embedder'>;
/** A one-line source for every value: what it was fitted on, or "not fitted: <reason>". */
export type ProfileSources = { [S in keyof Sections]: { [K in keyof Sections[S]]: string } };
/** The range an admin override of each value must fall in. */
export type ProfileRanges = { [S in keyof Sections]: { [K in keyof Sections[S]]: readonly [number, number] } };

/** Values every embedder shares; the chunking and sparse sections are read by the modules that apply them. */
export const SHARED_PROFILE: Sections = {
  chunking: { maxTokens: 512, overlapRatio: 0.15 },
  sparse: {
    k1: 1.2,
    b: 0.75,
    averageLength: 120,
    headingWeight: 4,
    parentHeadingWeight: 1,
    pairWeight: 1,
    pairBuckets: 1 << 18,
    averagePageLength: 1000,
  },
  dense: { leadWords: 0 },
  ranking: {
    candidates: 50,
    sparseExponent: 0.5,
    headingWeight: 0.3,
    pageWeight: 0.3,
    denseWeight: 0.4,
    denseFloor: 0,
    synonymWeight: 0.5,
    expansionWeight: 0.4,
  },
  scope: {
    coverageSections: 3,
    nameContextSections: 10,
    companionMinIdf: 2,
    nameMinCompanions: 2,
    subjectNameSections: 10,
    nameMinShare: 0.1,
    fitInScopeMissRate: 0.02,
    fitLexicalQuantile: 0.5,
    denseRule: 1,
    fitDenseQuantile: 0.9,
    fitDenseMargin: 0.02,
    denseVetoCoverage: 0.6,
  },
  context: { tokenBudget: 3500, maxSearchQueryChars: 2000 },
};

export const PROFILE_SOURCES: ProfileSources = {
  chunking: {
    maxTokens:
      'seven dev sets, summed MRR@5 / recall@5 (neural, 2026-11-29): 256 5.653/6.421, 384 5.621/6.383, 512 5.695/6.415, 1024 5.618/6.382; most doc sections fit whole at 512',
    overlapRatio: 'not fitted: keeps a sentence cut at a part boundary readable in both parts',
  },
  sparse: {
    k1: 'not fitted: the BM25 default (Robertson); sweeps on redux/typescript-eslint (session 3) found no better value',
    b: 'not fitted: the BM25 default; same sweeps as k1',
    averageLength:
      'redux chunk bodies average about 120 analysed words (measured at ingest, chunks-v1); each corpus its own average (typescript-eslint 73) tried 2026-11-29, not adopted: typescript-eslint dev MRR@5 0.756 -> 0.742, redux and docs-site unchanged',
    headingWeight: 'redux dev set, recall@5: 4 beat 2 and 8, flat 3..6 (session 1)',
    parentHeadingWeight: 'not fitted: a parent heading names the topic, not the section',
    pairWeight: 'redux dev set, BM25 alone recall@5 0.73 -> 0.80 with pairs (session 1)',
    pairBuckets: 'not fitted: memory bound for large sites; no loss on the three dev sets (session 2)',
    averagePageLength:
      'not fitted: typical Docusaurus page length in analysed words; each corpus its own (typescript-eslint 506, redux 1,797) tried 2026-11-29 with the section average: see averageLength',
  },
  dense: {
    leadWords: 'not fitted for local (hashing costs nothing per word): the whole chunk',
  },
  ranking: {
    candidates: 'not fitted: deep enough that no good BM25 or dense hit is cut before re-ranking (recall@50 = recall@all on the dev sets)',
    sparseExponent: 'redux, typescript-eslint, docs-site dev sets, MRR@5: 0.5 beat 1 (redux 0.61 -> 0.64), flat 0.4..0.7 (session 1)',
    headingWeight: 'three dev sets, MRR@5 (session 2, title-aware headings: redux +0.02, typescript-eslint +0.05)',
    pageWeight: 'three dev sets, MRR@5 (session 1); 0.2..0.4 within 0.01',
    denseWeight: 'three dev sets, MRR@5 with the hashing embedder (session 1)',
    denseFloor: 'not fitted: the hashing embedder puts unrelated texts near cosine 0',
    synonymWeight:
      'three dev sets (neural), after the word-list audit of issue 10: 0 vs 0.5 MRR@5 redux 0.706/0.706, typescript-eslint 0.734/0.756 (recall@5 0.833/0.900), docs-site 0.975/0.975; 0.5..0.7 equal at 275913b (hashing)',
    expansionWeight: 'three dev sets, recall@5 (session 1)',
  },
  scope: {
    coverageSections: 'not fitted: an answer may span a couple of sections',
    nameContextSections: 'not fitted: twice the results shown, so a name in any plausible section counts',
    companionMinIdf: 'not fitted: about "in fewer than one chunk in seven", so common words prove nothing',
    nameMinCompanions:
      'not fitted: a question naming a tool with one other informative word ("Does docs-chat support Algolia?") was refused on docs that name it; seven dev sets refuse and keep the same questions at 1, 2, 3 and 4 (2026-11-29)',
    subjectNameSections:
      'not fitted: as many sections as nameContextSections looks at; off-topic names of the dev sets sit in 0..2 pages, a subject of the docs in many (redux dev set: 1 in-scope question fewer refused, off-topic refusals unchanged)',
    nameMinShare:
      "not fitted (between the two groups): the names of the dev sets' off-topic questions hold 0.15..0.33 of their question's IDF weight; names in the pasted output of the troubleshooting dev sets 0.02..0.05 (8 of 9 wrong refusals there undone, off-topic refusals unchanged)",
    fitInScopeMissRate: 'the issue target: at most 2% of in-scope questions wrongly refused',
    fitLexicalQuantile:
      'three dev sets (local and neural): off-topic medians 0.22..0.27 vocabulary, 0.43..0.52 evidence, under every in-scope dev question (lowest 0.44 / 0.66)',
    denseRule: 'not fitted: a semantic embedder puts unrelated questions at low cosines whatever their words',
    fitDenseQuantile: 'the issue target: at least 90% of out-of-scope questions refused',
    fitDenseMargin:
      'three dev sets: with it the neural rule is on for all three (in-scope lowest cosine 0.32..0.43 above thresholds 0.28..0.33) and the hashing rule off for all three (its cosines overlap)',
    denseVetoCoverage:
      "seven dev sets (neural): 0.5..0.7 refuse the same 18 of 33 off-topic questions as no exemption (their best sections hold 0.45 of their words at most), 0.4 lets one through; a reader's short question whose words the best sections hold (coverage 0.67) was refused on its cosine alone (0.23)",
  },
  context: {
    tokenBudget: 'not fitted: five average sections with their headers fit a small model context',
    maxSearchQueryChars: 'not fitted: above this a question is mostly pasted text (logs, code); the protocol accepts 4,000',
  },
};

export const PROFILE_RANGES: ProfileRanges = {
  chunking: { maxTokens: [128, 2048], overlapRatio: [0, 0.5] },
  sparse: {
    k1: [0, 3],
    b: [0, 1],
    averageLength: [10, 2000],
    headingWeight: [0, 20],
    parentHeadingWeight: [0, 20],
    pairWeight: [0, 5],
    pairBuckets: [1024, 2 ** 31],
    averagePageLength: [50, 20000],
  },
  dense: { leadWords: [0, 2000] },
  ranking: {
    candidates: [5, 200],
    sparseExponent: [0.1, 2],
    headingWeight: [0, 2],
    pageWeight: [0, 2],
    denseWeight: [0, 3],
    denseFloor: [-1, 0.95],
    synonymWeight: [0, 1],
    expansionWeight: [0, 1],
  },
  scope: {
    coverageSections: [1, 20],
    nameContextSections: [1, 50],
    companionMinIdf: [0, 10],
    nameMinCompanions: [1, 10],
    subjectNameSections: [1, 1000],
    nameMinShare: [0, 1],
    fitInScopeMissRate: [0, 0.2],
    fitLexicalQuantile: [0, 1],
    denseRule: [0, 1],
    fitDenseQuantile: [0, 1],
    fitDenseMargin: [0, 0.5],
    denseVetoCoverage: [0, 1],
  },
  context: { tokenBudget: [500, 100000], maxSearchQueryChars: [200, 4000] },
};

/** What differs per embedder, with its own sources. */
interface EmbedderProfile {
  values: { [S in keyof Sections]?: Partial<Sections[S]> };
  sources: { [S in keyof Sections]?: Partial<ProfileSources[S]> };
}

const EMBEDDER_PROFILES: Record<string, EmbedderProfile> = {
  local: {
    values: { scope: { denseRule: 0 } },
    sources: {
      scope: {
        denseRule:
          'typescript-eslint dev set: the hashing cosine is lexical, off-topic and in-scope cosines overlap (a fitted 0.318 refused 2 of 30 in-scope questions); vocabulary and evidence cover it',
      },
    },
  },
  neural: {
    values: { dense: { leadWords: 60 }, ranking: { denseWeight: 0.8 } },
    sources: {
      dense: {
        leadWords:
          'three dev sets, MRR@5 (neural+hashing, dense weight 0.8): whole chunk 0.734/0.761/0.975 vs 60 words 0.714/0.764/0.975 (redux/typescript-eslint/docs-site), about 27% less inference per chunk; 60 words after the word-list audit of issue 10: 0.706/0.756/0.975',
      },
      ranking: {
        denseWeight:
          'three dev sets, MRR@5 over 0.4/0.8/1.2/1.6 x floor 0/0.2/0.35 (neural+hashing, whole chunks): 0.8 with floor 0 best summed (2.47 vs 2.39 for the hashing embedder)',
        denseFloor: 'three dev sets: floors 0.2 and 0.35 lost docs-site MRR@5 (0.975 -> 0.917 / 0.808) at weight 0.8',
      },
    },
  },
  gemini: { values: {}, sources: {} },
  openai: { values: {}, sources: {} },
};

/** The profile for an embedder provider, with an admin's validated overrides applied. */
export function retrievalProfileFor(embedder: string, overrides: ProfileOverrides = {}): RetrievalProfile {
  const own = EMBEDDER_PROFILES[embedder] ?? EMBEDDER_PROFILES.local!;
  const profile: RetrievalProfile = { version: PROFILE_VERSION, embedder, ...structuredClone(SHARED_PROFILE) };
  for (const section of Object.keys(own.values) as (keyof Sections)[]) Object.assign(profile[section], own.values[section]);
  for (const [key, value] of Object.entries(overrides)) {
    const [section, name] = key.split('.') as [keyof Sections, string];
    (profile[section] as unknown as Record<string, number>)[name] = value;
  }
  return profile;
}

/** The one-line source of each value of an embedder's profile. */
export function profileSourcesFor(embedder: string): ProfileSources {
  const own = EMBEDDER_PROFILES[embedder] ?? EMBEDDER_PROFILES.local!;
  const sources = structuredClone(PROFILE_SOURCES);
  for (const section of Object.keys(own.sources) as (keyof Sections)[]) Object.assign(sources[section], own.sources[section]);
  return sources;
}

/** Admin overrides, `section.name` -> value (e.g. `ranking.denseWeight`). */
export type ProfileOverrides = Record<string, number>;

/** Sections an admin may override: search-time values only, so an override never needs a re-index to take effect. */
export const OVERRIDABLE_SECTIONS = ['ranking', 'scope', 'context'] as const;

/**
 * Checks overrides against the known names and ranges; the error names the
 * value, its range and where it came from (`origin`, e.g. the variable).
 */
export function validateProfileOverrides(raw: Record<string, unknown>, origin: string): ProfileOverrides {
  const overrides: ProfileOverrides = {};
  for (const [key, value] of Object.entries(raw)) {
    const [section, name, extra] = key.split('.');
    const ranges = (PROFILE_RANGES as unknown as Record<string, Record<string, readonly [number, number]>>)[section ?? ''];
    if (
      !ranges ||
      !name ||
      extra !== undefined ||
      !(name in ranges) ||
      !(OVERRIDABLE_SECTIONS as readonly string[]).includes(section ?? '')
    ) {
      const known = OVERRIDABLE_SECTIONS.flatMap((candidate) =>
        Object.keys(PROFILE_RANGES[candidate]).map((entry) => `${candidate}.${entry}`),
      );
      throw new ProfileOverrideError(`${origin}: "${key}" is not a profile value an admin can set.`, `Use one of: ${known.join(', ')}.`);
    }
    const [min, max] = ranges[name] as readonly [number, number];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      throw new ProfileOverrideError(
        `${origin}: ${key}=${JSON.stringify(value)} is out of range; it must be a number from ${min} to ${max}.`,
        `Fix ${key} or remove it to use the fitted value.`,
      );
    }
    overrides[key] = value;
  }
  return overrides;
}

export class ProfileOverrideError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'ProfileOverrideError';
  }
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** Word lists hashed with the sections they shape (set by the modules that own them). */
export interface ProfileWordLists {
  /** Stop words and analyser rules: change every sparse vector. */
  analyzer: string;
  /** Thesaurus and common acronyms: search time. */
  search: string;
}

/** Hashes recorded with the index; comparing them tells an ingest what to redo. */
export interface ProfileHashes {
  /** Chunk boundaries. */
  chunking: string;
  /** Sparse vectors (BM25 parameters + analyser). */
  sparse: string;
  /** Dense vectors (embedder + the text it sees). */
  dense: string;
  /** Search-time values (ranking, scope rules, context): re-fit the scope thresholds, nothing else. */
  search: string;
  /** All of the above: the profile's identity. */
  profile: string;
}

export function profileHashes(profile: RetrievalProfile, words: ProfileWordLists): ProfileHashes {
  const chunking = digest([profile.version, profile.chunking]);
  const sparse = digest([profile.version, profile.sparse, words.analyzer]);
  const dense = digest([profile.version, profile.embedder, profile.dense]);
  const search = digest([profile.version, profile.ranking, profile.scope, profile.context, words.search]);
  return { chunking, sparse, dense, search, profile: digest([chunking, sparse, dense, search]) };
}
