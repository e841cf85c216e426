/**
 * Incremental ingest: decides per file added / modified / deleted / unchanged
 * from content hashes, embeds only what changed (the embedding cache catches
 * unchanged chunks of modified files), upserts, then deletes the chunks of
 * removed files and the stale chunks of modified ones. Nothing becomes visible
 * before `commit()`, so a failure or a kill leaves the previous index serving;
 * the next run redoes whatever was not recorded.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError, throwIfAborted } from '../errors.js';
import type { Chunk, ParsedDocument } from '../markdown/document.js';
import { decodeSourceFile } from '../markdown/decode-source.js';
import { parseDocument } from '../markdown/parse-document.js';
import { chunkDocument } from '../markdown/chunk-document.js';
import { encodeDocumentSparse, encodePageSparse } from '../text/sparse-encoder.js';
import { countChunk, emptyTermStatistics, readTermStatistics, serializeTermStatistics } from '../text/term-statistics.js';
import type { TermStatistics } from '../text/term-statistics.js';
import { learnTermAssociations, readTermAssociations, serializeTermAssociations } from '../text/term-associations.js';
import { analyzeTerms } from '../text/text-analysis.js';
import type { IndexedPage, IndexedPoint, StoredFileState, VectorStore } from '../stores/vector-store.js';
import type { Embedder } from '../embeddings/embedder.js';
import { acquireIngestLock } from './ingest-lock.js';
import { listDocsFiles, loadPermalinks } from './docs-files.js';
import type { ContentSet, SiteLayout, SiteSummary } from './site-layout.js';
import { readSiteSummary, summariseSite } from './site-layout.js';
import { computeBlogRoute, computeDocRoute } from '../markdown/docusaurus-routes.js';
import { parse as parseYaml } from 'yaml';
import type { IngestProgress, IngestReport } from './ingest-report.js';
import { buildIndexMeta, checkIndexMeta } from './index-identity.js';
import { retrievalProfileFor, type DenseProfile, type RetrievalProfile } from '../profile/retrieval-profile.js';
import { indexProfileHashes, readProfileHashes } from '../profile/index-profile.js';
import { createRetriever } from '../search/retriever.js';
import { fitScopeThresholds, readScopeFit, type ScopeFit } from '../search/scope-fit.js';
import type { Thesaurus } from '../text/synonyms.js';

/** What the ingest needs from the embedding layer (batching, retries and cache live there). */
export interface DocumentEmbedding {
  embedDocuments(
    items: { hash: string; text: string; title: string }[],
    options?: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void },
  ): Promise<Float32Array[]>;
  /** Question vectors, to fit the out-of-scope thresholds on the new index. */
  embedQuery(text: string, options?: { signal?: AbortSignal | undefined }): Promise<Float32Array>;
  readonly stats: { calls: number; texts: number; cacheHits: number };
}

export interface IngestDependencies {
  store: VectorStore;
  embedder: Embedder;
  embedding: DocumentEmbedding;
  dataDir: string;
  /** The retrieval profile of the embedder (chunking, sparse and dense values); the embedder's default when unset. */
  profile?: RetrievalProfile;
  /** The synonym groups search will use (the scope fit asks its questions as search will); the built-in ones when unset. */
  thesaurus?: Thesaurus;
}

export interface IngestOptions {
  docsDir: string;
  /** A whole site (`ingest --site`): its content sets replace `docsDir`'s single folder. */
  site?: SiteLayout;
  routeBasePath?: string;
  permalinksFile?: string;
  rebuild?: boolean;
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: IngestProgress) => void;
  /** What each chunk's `source` says (default `docs`; a git sync says `git`). */
  source?: string;
  /** A source that knows which files changed since the last run (git); see `IngestDelta`. */
  delta?: IngestDelta;
}

/**
 * Lets a source spare the reading of files it knows are unchanged. The state is
 * kept in the index meta (`extra[key]`) with a fingerprint of every setting
 * that shapes a file's hash, so a changed profile or route never trusts it.
 */
export interface IngestDelta {
  key: string;
  /** Recorded after a successful run (the fingerprint is added). */
  state: Record<string, unknown>;
  /**
   * The files (relative to the docs folder) that may differ since the recorded
   * state, or null to compare every file by content hash.
   */
  changedSince(previous: Record<string, unknown>): Promise<string[] | null>;
}

/**
 * What one source contributes to an index. Records and docs can share an
 * index: each run only adds, compares and deletes the files its source owns.
 */
export interface SourceEntry {
  file: string;
  fileHash: string;
  /** Turns the entry into a document; throwing marks the entry failed. */
  parse(): ParsedDocument;
  /** Adds what the source knows about the page to each of its chunks (a site page's version, locale...). */
  scopeChunk?(chunk: Chunk): Chunk;
}

export interface SourceScan {
  /** Shown in the report (`docsDir`). */
  label: string;
  total: number;
  entries: SourceEntry[];
  skipped: { file: string; reason: string }[];
  failed: { file: string; reason: string }[];
  /** Whether an indexed file belongs to this source (the others are left alone). */
  owns(file: string): boolean;
}

/** Files of the JSON records sources are keyed `records:<name>/<id>`; everything else is docs. */
export const RECORDS_FILE_PREFIX = 'records:';

const UPSERT_BATCH = 256;
/**
 * Bump when parsing changes what a file turns into: every file's hash changes
 * with it, so the next ingest re-chunks everything (the embedding cache still
 * spares unchanged chunks). Chunking values are in the profile, hashed apart.
 */
export const PARSING_VERSION = 'parse-v1';

/**
 * The text of a chunk its dense vector is made from: the whole chunk (heading
 * path first), or its first `leadWords` words when the profile says so, since
 * a neural model's cost grows with the words it reads.
 */
export function denseText(chunk: Pick<Chunk, 'indexText'>, dense: DenseProfile): string {
  if (dense.leadWords <= 0) return chunk.indexText;
  const words = chunk.indexText.split(/(\s+)/);
  return words.slice(0, dense.leadWords * 2 - 1).join('');
}

interface PlannedFile extends SourceEntry {
  status: 'added' | 'modified' | 'unchanged';
}

function sha256(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}

export async function ingestDocs(deps: IngestDependencies, options: IngestOptions): Promise<IngestReport> {
  const profile = deps.profile ?? retrievalProfileFor(deps.embedder.provider);
  const hashes = indexProfileHashes(profile);
  const routeBasePath = options.routeBasePath ?? '/docs';
  const docsDir = path.resolve(options.docsDir);
  const source = options.source ?? 'docs';
  const { site } = options;
  // A plain docs folder is one unscoped set whose keys are the bare paths, as before site ingest existed.
  const sets: ContentSet[] = site?.sets ?? [
    { kind: 'docs', instance: '', locale: '', dir: docsDir, defaultLocale: '', routeBasePath, keyPrefix: '' },
  ];
  const listing = await listSitePages(sets);
  // A site build's permalinks file covers the current docs folder only: a site ingest routes by itself.
  const permalinks = site ? new Map<string, string>() : await loadPermalinks(docsDir, options.permalinksFile);
  // Every setting that shapes a file's hash besides its bytes: a delta recorded under others is not trusted.
  const fingerprint = sha256(
    `${PARSING_VERSION}\0${hashes.chunking}\0${hashes.sparse}\0${hashes.dense}\0${routeBasePath}\0${source}\0${sha256(JSON.stringify([...permalinks]))}`,
  );
  return ingestSource(deps, options, {
    fingerprint,
    site: site ? summariseSite(site) : null,
    scan: async ({ stored, changedFiles }) => {
      const skipped = [...(site?.warnings ?? []), ...listing.ignored];
      const failed: { file: string; reason: string }[] = [];
      const entries: SourceEntry[] = [];
      const urlOwners = new Map<string, string>();
      let scanned = 0;
      for (const page of listing.pages) {
        const { file, set } = page;
        throwIfAborted(options.signal);
        options.onProgress?.({ phase: 'scan', done: scanned, total: listing.pages.length });
        scanned += 1;
        const previous = stored.get(file);
        // A file the source says did not change, and that the index holds, is not read again.
        if (changedFiles && previous && !changedFiles.has(file)) {
          entries.push({
            file,
            fileHash: previous.fileHash,
            parse: () => {
              throw new Error('unchanged');
            },
          });
          continue;
        }
        let bytes: Uint8Array;
        try {
          bytes = await fs.readFile(page.path);
        } catch (error) {
          skipped.push({ file, reason: `cannot be read: ${(error as Error).message}` });
          continue;
        }
        const decoded = decodeSourceFile(bytes);
        if (!decoded.ok) {
          skipped.push({ file, reason: decoded.reason });
          continue;
        }
        // Read once: it says whether the page is hidden and, for a site ingest, its URL.
        const pageFrontMatter = readFrontMatterBlock(decoded.text);
        const hidden = hiddenPageReason(pageFrontMatter);
        if (hidden !== null) {
          // Left out like a deleted page: one indexed before it was hidden goes from the index.
          skipped.push({ file, reason: hidden });
          continue;
        }
        const scoped = set.keyPrefix !== '';
        if (scoped) {
          // Two pages on one URL (a doc id in two instances on one route, a slug taken twice): the second is refused.
          const url = pageRoute(page, pageFrontMatter);
          const owner = urlOwners.get(url);
          if (owner !== undefined) {
            failed.push({
              file,
              reason: `has the same URL ${url} as ${owner}: one page would hide the other; give one of them another id or slug, or its instance another route base`,
            });
            continue;
          }
          urlOwners.set(url, file);
        }
        const permalink = permalinks.get(page.relative);
        // The hash covers everything that shapes the chunks, not only the bytes:
        // every profile value that shapes its chunks and their vectors, the route and the source.
        const route = scoped ? `\0${set.kind}\0${set.routeBasePath}\0${page.fallback ? set.defaultLocale : ''}` : '';
        const fileHash = sha256(`${fingerprint}${route}\0${permalink ?? ''}\0${sha256(bytes)}`);
        let frontMatter: Record<string, unknown> = {};
        entries.push({
          file,
          fileHash,
          parse: () => {
            const parsed = parseDocument({
              file: page.relative,
              text: decoded.text,
              routeBasePath: scoped ? set.routeBasePath : routeBasePath,
              permalink,
              kind: set.kind,
            });
            frontMatter = parsed.frontMatter;
            return { ...parsed, file, source };
          },
          ...(scoped ? { scopeChunk: (chunk: Chunk) => withSiteScope(chunk, page, frontMatter) } : {}),
        });
      }
      return {
        label: site?.siteDir ?? docsDir,
        total: listing.pages.length,
        entries,
        skipped,
        failed,
        owns: (file) => !file.startsWith(RECORDS_FILE_PREFIX),
      };
    },
  });
}

/** How a source lists its entries, given what the index holds and (for a delta) which files changed. */
export interface SourceScanner {
  fingerprint: string;
  /**
   * Docs sources only: the whole site they index, or null for one docs folder (which must not replace a site
   * index); left out by sources that sit beside the docs (records).
   */
  site?: SiteSummary | null;
  scan(input: { stored: Map<string, StoredFileState>; changedFiles: Set<string> | null }): Promise<SourceScan>;
}

/** The incremental ingest of any source: compare, embed what changed, write, delete what went. */
export async function ingestSource(
  deps: IngestDependencies,
  options: Omit<IngestOptions, 'docsDir'>,
  scanner: SourceScanner,
): Promise<IngestReport> {
  const started = performance.now();
  const { store, embedder, embedding } = deps;
  const profile = deps.profile ?? retrievalProfileFor(embedder.provider);
  const hashes = indexProfileHashes(profile);
  const rebuild = options.rebuild ?? false;
  const dryRun = options.dryRun ?? false;
  const progress = options.onProgress ?? (() => undefined);

  const lock = dryRun ? null : await acquireIngestLock(deps.dataDir, store.collection);
  try {
    const meta = buildIndexMeta(embedder);
    const existingMeta = rebuild ? null : await store.readMeta(options.signal);
    if (existingMeta) checkIndexMeta(existingMeta, meta, `in ${store.backend} (${store.collection})`);
    // A plain folder ingest over a whole-site index would delete every version and locale but one.
    if (existingMeta && scanner.site === null && readSiteSummary(existingMeta.extra) !== null) {
      throw new DocsChatError(
        'config_invalid',
        `The index in ${store.backend} (${store.collection}) was built from a whole site (ingest --site); ingesting one docs folder into it would remove its other versions and locales.`,
        {
          hint: 'Run the ingest with --site SITE_DIR again, or add --rebuild to replace the site index with this folder.',
        },
      );
    }
    if (!dryRun) await store.prepare(existingMeta ?? meta, { rebuild });

    const allStored = rebuild && !dryRun ? [] : existingMeta ? await store.listFiles(options.signal) : [];

    // A delta is trusted only when it was recorded under the same settings.
    const delta = options.delta;
    const previousDelta = existingMeta?.extra?.[delta?.key ?? ''] as Record<string, unknown> | undefined;
    let changedFiles: Set<string> | null = null;
    if (delta && previousDelta && previousDelta['fingerprint'] === scanner.fingerprint) {
      const changed = await delta.changedSince(previousDelta);
      if (changed) changedFiles = new Set(changed);
    }
    let deltaState = delta ? { ...delta.state, fingerprint: scanner.fingerprint } : undefined;

    const allByFile = new Map(allStored.map((state) => [state.file, state]));
    const scan = await scanner.scan({ stored: allByFile, changedFiles });
    const stored = allStored.filter((state) => scan.owns(state.file));
    const storedByFile = new Map(stored.map((state) => [state.file, state]));

    const skipped = scan.skipped;
    const failed: { file: string; reason: string }[] = [...scan.failed];
    const planned: PlannedFile[] = scan.entries.map((entry) => {
      const previous = storedByFile.get(entry.file);
      const status = previous === undefined ? 'added' : previous.fileHash === entry.fileHash ? 'unchanged' : 'modified';
      return Object.assign(entry, { status }) as PlannedFile;
    });
    const present = new Set(planned.map((entry) => entry.file));
    const deletedFiles = stored.filter((state) => !present.has(state.file));

    // Parse and chunk what changed.
    const changed = planned.filter((entry) => entry.status !== 'unchanged');
    const fallbackParsed: string[] = [];
    const newChunks: { entry: PlannedFile; chunks: Chunk[] }[] = [];
    let parsed = 0;
    for (const entry of changed) {
      throwIfAborted(options.signal);
      progress({ phase: 'parse', done: parsed, total: changed.length });
      parsed += 1;
      try {
        const document = entry.parse();
        if (document.usedFallbackParser) fallbackParsed.push(entry.file);
        newChunks.push({
          entry,
          chunks: chunkDocument(document, {
            fileHash: entry.fileHash,
            maxTokens: profile.chunking.maxTokens,
            overlapRatio: profile.chunking.overlapRatio,
          }).map((chunk) => entry.scopeChunk?.(chunk) ?? chunk),
        });
      } catch (error) {
        failed.push({ file: entry.file, reason: (error as Error).message });
      }
    }

    // Work out chunk-level changes against what the index holds.
    const previousChunkHashes = new Map<string, string>();
    const modifiedIds = newChunks.flatMap(({ entry }) => storedByFile.get(entry.file)?.chunkIds ?? []);
    const deletedIds = deletedFiles.flatMap((state) => state.chunkIds);
    // The chunks that go away are fetched whole: the term statistics uncount them.
    const replacedChunks =
      dryRun || modifiedIds.length + deletedIds.length === 0 ? [] : await store.getByIds([...modifiedIds, ...deletedIds], options.signal);
    if (dryRun && modifiedIds.length > 0) {
      for (const chunk of await store.getByIds(modifiedIds, options.signal)) previousChunkHashes.set(chunk.id, chunk.hash);
    }
    for (const chunk of replacedChunks) previousChunkHashes.set(chunk.id, chunk.hash);
    let added = 0;
    let updated = 0;
    let unchangedChunks = 0;
    const toEmbed: Chunk[] = [];
    for (const { chunks } of newChunks) {
      for (const chunk of chunks) {
        const previousHash = previousChunkHashes.get(chunk.id);
        if (previousHash === undefined) added += 1;
        else if (previousHash === chunk.hash) unchangedChunks += 1;
        else updated += 1;
        toEmbed.push(chunk);
      }
    }
    const keptIds = new Set(toEmbed.map((chunk) => chunk.id));
    const staleIds = [
      ...newChunks.flatMap(({ entry }) => (storedByFile.get(entry.file)?.chunkIds ?? []).filter((id) => !keptIds.has(id))),
      ...deletedFiles.flatMap((state) => state.chunkIds),
    ];
    const failedFiles = new Set(failed.map((entry) => entry.file));
    const untouchedChunks = stored
      .filter((state) => present.has(state.file) && (failedFiles.has(state.file) || !changed.some((entry) => entry.file === state.file)))
      .reduce((sum, state) => sum + state.chunkIds.length, 0);

    // A file that failed keeps the previous state: the next delta starts from the old point again, so the file is retried.
    if (failed.length > 0) deltaState = undefined;
    const otherSourcesChunks = allStored.filter((state) => !scan.owns(state.file)).reduce((sum, state) => sum + state.chunkIds.length, 0);

    const report: IngestReport = {
      docsDir: scan.label,
      ...(scanner.site ? { site: scanner.site } : {}),
      dryRun,
      rebuild,
      embedder: { provider: embedder.provider, model: embedder.model, dimensions: embedder.dimensions },
      store: { backend: store.backend, collection: store.collection },
      files: {
        total: scan.total,
        added: planned.filter((entry) => entry.status === 'added').length,
        modified: planned.filter((entry) => entry.status === 'modified').length,
        deleted: deletedFiles.length,
        unchanged: planned.filter((entry) => entry.status === 'unchanged').length,
        skipped,
        failed,
        fallbackParsed,
      },
      chunks: {
        added,
        updated,
        deleted: staleIds.length,
        unchanged: unchangedChunks + untouchedChunks,
        // Chunks of other sources sharing the index count too: the statistics cover the whole index.
        total: untouchedChunks + toEmbed.length + otherSourcesChunks,
      },
      embedding: { calls: 0, texts: 0, cacheHits: 0 },
      durationMs: 0,
    };
    if (dryRun) {
      report.durationMs = Math.round(performance.now() - started);
      return report;
    }

    // Embed (cache first), then write.
    const statsBefore = { ...embedding.stats };
    const vectors = await embedding.embedDocuments(
      toEmbed.map((chunk) => {
        const text = denseText(chunk, profile.dense);
        // The cache key follows the text the embedder saw, so a shorter lead never reuses a whole-chunk vector.
        return { hash: text === chunk.indexText ? chunk.hash : sha256(text), text, title: chunk.title };
      }),
      { signal: options.signal, onProgress: (done, total) => progress({ phase: 'embed', done, total }) },
    );
    report.embedding = {
      calls: embedding.stats.calls - statsBefore.calls,
      texts: embedding.stats.texts - statsBefore.texts,
      cacheHits: embedding.stats.cacheHits - statsBefore.cacheHits,
    };
    const points: IndexedPoint[] = toEmbed.map((chunk, index) => ({
      id: chunk.id,
      dense: vectors[index] as Float32Array,
      sparse: encodeDocumentSparse({ headingPath: chunk.headingPath, text: chunk.text }),
      payload: chunk,
    }));
    for (let offset = 0; offset < points.length; offset += UPSERT_BATCH) {
      throwIfAborted(options.signal);
      progress({ phase: 'write', done: offset, total: points.length });
      await store.upsert(points.slice(offset, offset + UPSERT_BATCH), options.signal);
    }
    if (staleIds.length > 0) await store.deleteByIds(staleIds, options.signal);

    // Page-level vectors for the pages that changed; removed pages go.
    const pages: IndexedPage[] = newChunks
      .filter(({ chunks }) => chunks.length > 0)
      .map(({ entry, chunks }) => ({
        file: entry.file,
        docId: (chunks[0] as Chunk).docId,
        sparse: encodePageSparse({ title: (chunks[0] as Chunk).title, texts: chunks.map((chunk) => chunk.text) }),
      }));
    if (pages.length > 0) await store.upsertPages(pages, options.signal);
    const emptiedFiles = newChunks.filter(({ chunks }) => chunks.length === 0).map(({ entry }) => entry.file);
    if (deletedFiles.length + emptiedFiles.length > 0) {
      await store.deletePages([...deletedFiles.map((state) => state.file), ...emptiedFiles], options.signal);
    }

    // A rebuild starts from an empty index, so counting the new chunks is the whole story.
    const previousStats = rebuild ? emptyTermStatistics() : readTermStatistics(existingMeta?.extra);
    const anythingChanged = toEmbed.length > 0 || staleIds.length > 0;
    const previousAssociations = rebuild ? null : readTermAssociations(existingMeta?.extra);
    const previousProfile = rebuild ? null : readProfileHashes(existingMeta?.extra);
    const previousFit = rebuild ? null : readScopeFit(existingMeta?.extra);
    if (
      anythingChanged ||
      previousStats === null ||
      previousStats.chunks !== report.chunks.total ||
      previousAssociations === null ||
      previousProfile?.profile !== hashes.profile ||
      previousFit === null ||
      (scanner.site !== undefined && JSON.stringify(existingMeta?.extra?.['site'] ?? null) !== JSON.stringify(scanner.site))
    ) {
      const stats = await updatedTermStatistics(store, previousStats, {
        added: toEmbed,
        removed: replacedChunks,
        total: report.chunks.total,
        signal: options.signal,
      });
      // Associations depend on every chunk's word order, so they are learned afresh from the whole index.
      const chunks = await allChunks(store, options.signal);
      const associations = learnTermAssociations(chunks.map((chunk) => analyzeTerms(chunk.text)));
      const extra = {
        ...(existingMeta?.extra ?? {}),
        termStats: serializeTermStatistics(stats),
        termAssociations: serializeTermAssociations(associations),
        profile: hashes,
        ...(scanner.site !== undefined ? { site: scanner.site } : {}),
        ...(delta && deltaState ? { [delta.key]: deltaState } : {}),
      };
      await store.updateMetaExtra(extra, options.signal);
      // The thresholds are fitted on the index as search will see it, statistics included.
      progress({ phase: 'fit', done: 0, total: 1 });
      const scopeFit = await fitIndexScope({ store, embedding, profile, thesaurus: deps.thesaurus, chunks, signal: options.signal });
      await store.updateMetaExtra({ ...extra, scopeFit }, options.signal);
      report.scopeFit = scopeFit;
    } else if (delta && deltaState && JSON.stringify(previousDelta) !== JSON.stringify(deltaState)) {
      // Nothing to re-index, but the source moved on (a new commit touching no page): record where it stands.
      await store.updateMetaExtra({ ...(existingMeta?.extra ?? {}), [delta.key]: deltaState }, options.signal);
    }
    await store.commit();
    progress({ phase: 'done', done: points.length, total: points.length });
    report.durationMs = Math.round(performance.now() - started);
    return report;
  } finally {
    await lock?.release();
  }
}

/** Fits the out-of-scope thresholds on the index just written (search/scope-fit.ts). */
async function fitIndexScope(input: {
  store: VectorStore;
  embedding: DocumentEmbedding;
  profile: RetrievalProfile;
  thesaurus: Thesaurus | undefined;
  chunks: Chunk[];
  signal: AbortSignal | undefined;
}): Promise<ScopeFit> {
  // Thresholds of 0 refuse nothing: the fit reads the raw signals from the explanation.
  const retriever = createRetriever({
    store: input.store,
    embedding: input.embedding,
    calibration: { minVocabulary: 0, minEvidence: 0, minDense: 0 },
    profile: input.profile,
    ...(input.thesaurus ? { thesaurus: input.thesaurus } : {}),
  });
  return fitScopeThresholds(
    input.chunks,
    async (question) => {
      const { explanation } = await retriever.search(question, { explain: true, ...(input.signal ? { signal: input.signal } : {}) });
      const scope = explanation?.scope;
      return { vocabulary: scope?.vocabulary ?? 0, evidence: (scope?.coverage ?? 0) + (scope?.dense ?? 0), dense: scope?.dense ?? 0 };
    },
    input.profile.scope,
  );
}

/**
 * Term statistics after this run: the previous ones minus the removed chunks
 * plus the new ones, or, when there were none or they do not add up to the
 * index's chunk count (a run killed between writes), counted afresh from every
 * chunk in the store.
 */
async function updatedTermStatistics(
  store: VectorStore,
  previous: TermStatistics | null,
  change: { added: Chunk[]; removed: Chunk[]; total: number; signal?: AbortSignal },
): Promise<TermStatistics> {
  if (previous) {
    const stats: TermStatistics = { chunks: previous.chunks, df: new Map(previous.df) };
    for (const chunk of change.removed) countChunk(stats, chunk, -1);
    for (const chunk of change.added) countChunk(stats, chunk, 1);
    if (stats.chunks === change.total) return stats;
  }
  const stats = emptyTermStatistics();
  const ids = (await store.listFiles(change.signal)).flatMap((state) => state.chunkIds);
  for (let start = 0; start < ids.length; start += 512) {
    for (const chunk of await store.getByIds(ids.slice(start, start + 512), change.signal)) countChunk(stats, chunk, 1);
  }
  return stats;
}

/** Every chunk in the index, in batches. */
async function allChunks(store: VectorStore, signal?: AbortSignal): Promise<Chunk[]> {
  const ids = (await store.listFiles(signal)).flatMap((state) => state.chunkIds);
  const chunks: Chunk[] = [];
  for (let start = 0; start < ids.length; start += 512) chunks.push(...(await store.getByIds(ids.slice(start, start + 512), signal)));
  return chunks;
}

export function describeIngestFailure(error: unknown): string {
  if (error instanceof DocsChatError) return error.describe();
  return `Ingest failed: ${(error as Error).message}`;
}

/** Every page of the content sets, with its index key; a translated page replaces the default one at the same path. */
async function listSitePages(sets: ContentSet[]): Promise<{ pages: SitePage[]; ignored: { file: string; reason: string }[] }> {
  const pages: SitePage[] = [];
  const ignored: { file: string; reason: string }[] = [];
  for (const set of sets) {
    const listing = await listDocsFiles(set.dir);
    for (const entry of listing.ignored) ignored.push({ file: `${set.keyPrefix}${entry.file}`, reason: entry.reason });
    const translated = new Set(
      set.localizedDir && (await isDirectory(set.localizedDir)) ? (await listDocsFiles(set.localizedDir)).pages : [],
    );
    for (const relative of listing.pages) {
      const localized = translated.has(relative);
      pages.push({
        file: `${set.keyPrefix}${relative}`,
        relative,
        set,
        path: path.join(localized && set.localizedDir ? set.localizedDir : set.dir, relative),
        fallback: set.localizedDir !== undefined && !localized,
      });
    }
    // Docusaurus only serves a translated file that has an original at the same path.
    const originals = new Set(listing.pages);
    for (const relative of translated) {
      if (!originals.has(relative))
        ignored.push({
          file: `${set.keyPrefix}${relative}`,
          reason: `translation without an original at ${path.join(set.dir, relative)}: Docusaurus does not serve it`,
        });
    }
  }
  return { pages, ignored };
}

interface SitePage {
  file: string;
  relative: string;
  set: ContentSet;
  path: string;
  fallback: boolean;
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why a page readers must not be sent to is left out, or null. Docusaurus builds a `draft: true` page only in
 * development, so a citation of it leads nowhere on the published site; an `unlisted: true` page is built but
 * kept out of the sidebar, the sitemap and search, so answers do not point to it either (llms.txt and the static
 * search index leave both out too).
 */
function hiddenPageReason(frontMatter: Record<string, unknown>): string | null {
  if (frontMatter.draft === true)
    return 'draft (`draft: true`): Docusaurus leaves it out of production builds, so answers must not cite it';
  if (frontMatter.unlisted === true) return 'unlisted (`unlisted: true`): Docusaurus keeps it out of search, so answers do not cite it';
  return null;
}

/** The page's URL from its path and front matter alone (no markdown parse), for the one-URL-one-page check. */
function pageRoute(page: SitePage, frontMatter: Record<string, unknown>): string {
  return page.set.kind === 'blog'
    ? computeBlogRoute({ file: page.relative, frontMatter, routeBasePath: page.set.routeBasePath }).url
    : computeDocRoute({ file: page.relative, frontMatter, routeBasePath: page.set.routeBasePath }).url;
}

function readFrontMatterBlock(text: string): Record<string, unknown> {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return {};
  try {
    const value: unknown = parseYaml(match[1] as string);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A site page's chunk with its version, locale, instance, fallback locale and post date. */
function withSiteScope(
  chunk: Chunk,
  entry: { set: ContentSet; fallback: boolean; relative: string },
  frontMatter: Record<string, unknown>,
): Chunk {
  const { set } = entry;
  const scoped: Chunk = { ...chunk, instance: set.instance, locale: set.locale };
  if (set.version !== undefined) scoped.version = set.version;
  if (entry.fallback) scoped.fallbackLocale = set.defaultLocale;
  if (set.kind === 'blog') {
    const date = computeBlogRoute({ file: entry.relative, frontMatter, routeBasePath: set.routeBasePath }).date;
    if (date) scoped.date = date;
  }
  return scoped;
}
