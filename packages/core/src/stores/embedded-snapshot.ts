/**
 * On-disk snapshot of the embedded index, under `${dataDir}/index/<collection>/`:
 *
 * - `vectors-<id>.f32`  count x dimensions float32, little-endian, one contiguous block
 * - `sparse-<id>.bin`   uint32 offsets[count + 1], uint32 indices[nnz], float32 values[nnz]
 * - `points-<id>.json`  `{ ids, payloads, pages }`: ids and payloads in slot order, then each page's file and doc id
 * - `pages-<id>.bin`    the page vectors as `sparse-<id>.bin`, one per entry of `pages`
 * - `manifest.json`     format version, meta, counts, and name/size/SHA-256 of the three files
 *
 * A commit writes the data files under a fresh snapshot id, then swaps the
 * manifest in with a rename: readers see the old snapshot or the new one,
 * never a mix, and a writer killed mid-way leaves the old one serving.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DocsChatError } from '../errors.js';
import { isIndexMeta, REBUILD_HINT } from './index-meta.js';
import type { ChunkPayload, IndexMeta } from './vector-store.js';

export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'docs-chat/embedded-index';
/** 2: page vectors (pages-<id>.bin). */
const FORMAT_VERSION = 2;
const DATA_FILE = /^(vectors|sparse|points|pages)-[0-9a-f-]+\.(f32|bin|json)$/;

export interface SnapshotData {
  meta: IndexMeta;
  ids: string[];
  payloads: ChunkPayload[];
  /** count x meta.dimensions. */
  vectors: Float32Array;
  /** count + 1 offsets into `sparseIndices` / `sparseValues`. */
  sparseOffsets: Uint32Array;
  sparseIndices: Uint32Array;
  sparseValues: Float32Array;
  /** Page-level sparse vectors, one per page. */
  pages: StoredPage[];
}

export interface StoredPage {
  file: string;
  docId: string;
  indices: Uint32Array;
  values: Float32Array;
}

interface FileEntry {
  name: string;
  bytes: number;
  sha256: string;
}

interface Manifest {
  format: string;
  formatVersion: number;
  snapshotId: string;
  writtenAt: string;
  endianness: 'little';
  meta: IndexMeta;
  count: number;
  nonZeros: number;
  files: { vectors: FileEntry; sparse: FileEntry; points: FileEntry; pages: FileEntry };
  pageNonZeros: number;
}

/** Cheap identity of the current manifest (changes on every commit because the manifest is replaced by rename). */
export async function manifestStamp(directory: string): Promise<string | null> {
  try {
    const info = await stat(join(directory, MANIFEST_FILE));
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

export interface LoadedSnapshot {
  data: SnapshotData;
  snapshotId: string;
  stamp: string;
}

/** Reads the current snapshot, or null when none was ever committed. Throws `index_corrupt` on damage. */
export async function readSnapshot(directory: string): Promise<LoadedSnapshot | null> {
  // A concurrent commit may delete the data files of the manifest we just read: re-read the new manifest then.
  for (let attempt = 0; ; attempt++) {
    const stamp = await manifestStamp(directory);
    if (stamp === null) return null;
    try {
      return { ...(await readSnapshotOnce(directory)), stamp };
    } catch (error) {
      const replaced = isMissingFile(error) && (await manifestStamp(directory)) !== stamp;
      if (replaced && attempt < 3) continue;
      if (error instanceof DocsChatError) throw error;
      if (isMissingFile(error)) throw corrupt(directory, `a file named by the manifest is missing (${describe(error)})`);
      throw error;
    }
  }
}

async function readSnapshotOnce(directory: string): Promise<{ data: SnapshotData; snapshotId: string }> {
  const manifestText = await readFile(join(directory, MANIFEST_FILE), 'utf8');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch {
    throw corrupt(directory, 'manifest.json is not valid JSON');
  }
  if (manifest.format !== FORMAT || typeof manifest.formatVersion !== 'number') {
    throw corrupt(directory, 'manifest.json is not a docs-chat index manifest');
  }
  if (manifest.formatVersion !== FORMAT_VERSION) {
    throw new DocsChatError(
      'index_corrupt',
      `The embedded index at ${directory} uses format version ${manifest.formatVersion}; this docs-chat reads version ${FORMAT_VERSION}.`,
      { hint: REBUILD_HINT },
    );
  }
  const { count, nonZeros, meta, files } = manifest;
  if (!isIndexMeta(meta) || !Number.isInteger(count) || count < 0 || !Number.isInteger(nonZeros) || nonZeros < 0 || !files) {
    throw corrupt(directory, 'manifest.json lacks its counts or index meta');
  }
  const pageNonZeros = manifest.pageNonZeros;
  if (!Number.isInteger(pageNonZeros) || pageNonZeros < 0) throw corrupt(directory, 'manifest.json lacks its page counts');
  const [vectorBytes, sparseBytes, pointBytes, pageBytes] = await Promise.all([
    readVerified(directory, files.vectors),
    readVerified(directory, files.sparse),
    readVerified(directory, files.points),
    readVerified(directory, files.pages),
  ]);
  if (vectorBytes.byteLength !== count * meta.dimensions * 4) {
    throw corrupt(directory, `${files.vectors.name} does not hold ${count} vectors of ${meta.dimensions} dimensions`);
  }
  if (sparseBytes.byteLength !== (count + 1) * 4 + nonZeros * 8) {
    throw corrupt(directory, `${files.sparse.name} has the wrong size`);
  }
  const vectors = float32View(vectorBytes, 0, count * meta.dimensions);
  const sparseOffsets = uint32View(sparseBytes, 0, count + 1);
  const sparseIndices = uint32View(sparseBytes, (count + 1) * 4, nonZeros);
  const sparseValues = float32View(sparseBytes, (count + 1) * 4 + nonZeros * 4, nonZeros);
  if (sparseOffsets[count] !== nonZeros) throw corrupt(directory, `${files.sparse.name} offsets do not add up`);

  let points: { ids?: unknown; payloads?: unknown; pages?: unknown };
  try {
    points = JSON.parse(pointBytes.toString('utf8')) as typeof points;
  } catch {
    throw corrupt(directory, `${files.points.name} is not valid JSON`);
  }
  if (!Array.isArray(points.ids) || !Array.isArray(points.payloads) || points.ids.length !== count || points.payloads.length !== count) {
    throw corrupt(directory, `${files.points.name} does not hold ${count} points`);
  }
  const pageKeys = points.pages;
  if (!Array.isArray(pageKeys) || !pageKeys.every(isPageKey)) throw corrupt(directory, `${files.points.name} lacks its page list`);
  const pageCount = pageKeys.length;
  if (pageBytes.byteLength !== (pageCount + 1) * 4 + pageNonZeros * 8) throw corrupt(directory, `${files.pages.name} has the wrong size`);
  const pageOffsets = uint32View(pageBytes, 0, pageCount + 1);
  const pageIndices = uint32View(pageBytes, (pageCount + 1) * 4, pageNonZeros);
  const pageValues = float32View(pageBytes, (pageCount + 1) * 4 + pageNonZeros * 4, pageNonZeros);
  if (pageOffsets[pageCount] !== pageNonZeros) throw corrupt(directory, `${files.pages.name} offsets do not add up`);
  const pages: StoredPage[] = pageKeys.map((key, i) => ({
    file: key.file,
    docId: key.docId,
    indices: pageIndices.subarray(pageOffsets[i] as number, pageOffsets[i + 1] as number),
    values: pageValues.subarray(pageOffsets[i] as number, pageOffsets[i + 1] as number),
  }));
  return {
    snapshotId: manifest.snapshotId,
    data: {
      meta,
      ids: points.ids as string[],
      payloads: (points.payloads as StoredPayload[]).map(expandPayload),
      vectors,
      sparseOffsets,
      sparseIndices,
      sparseValues,
      pages,
    },
  };
}

function isPageKey(value: unknown): value is { file: string; docId: string } {
  const key = value as { file?: unknown; docId?: unknown } | null;
  return typeof key === 'object' && key !== null && typeof key.file === 'string' && typeof key.docId === 'string';
}

/** Writes a new snapshot and makes it current; returns the new manifest stamp. */
export async function writeSnapshot(directory: string, data: SnapshotData): Promise<string> {
  await mkdir(directory, { recursive: true });
  const count = data.ids.length;
  const nonZeros = data.sparseOffsets[count] ?? 0;
  const snapshotId = randomUUID();

  const sparseBuffer = Buffer.alloc((count + 1) * 4 + nonZeros * 8);
  bytesOf(data.sparseOffsets.subarray(0, count + 1)).copy(sparseBuffer, 0);
  bytesOf(data.sparseIndices.subarray(0, nonZeros)).copy(sparseBuffer, (count + 1) * 4);
  bytesOf(data.sparseValues.subarray(0, nonZeros)).copy(sparseBuffer, (count + 1) * 4 + nonZeros * 4);

  const pageCount = data.pages.length;
  const pageNonZeros = data.pages.reduce((sum, page) => sum + page.indices.length, 0);
  const pageBuffer = Buffer.alloc((pageCount + 1) * 4 + pageNonZeros * 8);
  let cursor = 0;
  data.pages.forEach((page, i) => {
    pageBuffer.writeUInt32LE(cursor, i * 4);
    bytesOf(page.indices).copy(pageBuffer, (pageCount + 1) * 4 + cursor * 4);
    bytesOf(page.values).copy(pageBuffer, (pageCount + 1) * 4 + pageNonZeros * 4 + cursor * 4);
    cursor += page.indices.length;
  });
  pageBuffer.writeUInt32LE(cursor, pageCount * 4);

  const [vectors, sparse, points, pages] = await Promise.all([
    writeDurably(directory, `vectors-${snapshotId}.f32`, bytesOf(data.vectors.subarray(0, count * data.meta.dimensions))),
    writeDurably(directory, `sparse-${snapshotId}.bin`, sparseBuffer),
    writeDurably(directory, `points-${snapshotId}.json`, Buffer.from(JSON.stringify({ ids: data.ids, payloads: data.payloads.map(compactPayload), pages: data.pages.map(({ file, docId }) => ({ file, docId })) })),
    ),
    writeDurably(directory, `pages-${snapshotId}.bin`, pageBuffer),
  ]);
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    snapshotId,
    writtenAt: new Date().toISOString(),
    endianness: 'little',
    meta: data.meta,
    count,
    nonZeros,
    files: { vectors, sparse, points, pages },
    pageNonZeros,
  };
  // The rename of the manifest is the commit point.
  await writeDurably(directory, MANIFEST_FILE, Buffer.from(JSON.stringify(manifest, null, 2)));
  await syncDirectory(directory);
  const stamp = await manifestStamp(directory);
  await removeStaleFiles(directory, new Set([vectors.name, sparse.name, points.name, pages.name]));
  return stamp ?? '';
}

async function writeDurably(directory: string, name: string, bytes: Buffer): Promise<FileEntry> {
  const temporary = join(directory, `.${name}.${process.pid}.${randomUUID()}.tmp`);
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, join(directory, name));
  return { name, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
}

async function syncDirectory(directory: string): Promise<void> {
  // Makes the renames durable; not supported on every platform, where the rename is still atomic.
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}

async function removeStaleFiles(directory: string, keep: Set<string>): Promise<void> {
  const entries = await readdir(directory);
  const hourAgo = Date.now() - 3600_000;
  await Promise.all(
    entries.map(async (entry) => {
      const path = join(directory, entry);
      if (DATA_FILE.test(entry) && !keep.has(entry)) {
        await rm(path, { force: true });
      } else if (entry.endsWith('.tmp')) {
        // Leftovers of a writer killed mid-commit; recent ones may belong to a live writer.
        const info = await stat(path).catch(() => null);
        if (info && info.mtimeMs < hourAgo) await rm(path, { force: true });
      }
    }),
  );
}

async function readVerified(directory: string, entry: FileEntry | undefined): Promise<Buffer> {
  if (!entry || typeof entry.name !== 'string' || !DATA_FILE.test(entry.name)) {
    throw corrupt(directory, 'manifest.json names an invalid data file');
  }
  const bytes = await readFile(join(directory, entry.name));
  if (bytes.byteLength !== entry.bytes) {
    throw corrupt(directory, `${entry.name} holds ${bytes.byteLength} bytes, the manifest says ${entry.bytes} (truncated?)`);
  }
  if (createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
    throw corrupt(directory, `${entry.name} does not match its checksum`);
  }
  return bytes;
}

function corrupt(directory: string, detail: string): DocsChatError {
  return new DocsChatError('index_corrupt', `The embedded index at ${directory} is damaged: ${detail}.`, { hint: REBUILD_HINT });
}

function bytesOf(view: ArrayBufferView): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

// Typed-array views need 4-byte alignment; buffers from the pool may not have it, so copy then.
function float32View(bytes: Buffer, byteOffset: number, length: number): Float32Array {
  const start = bytes.byteOffset + byteOffset;
  if (start % 4 === 0) return new Float32Array(bytes.buffer, start, length);
  return new Float32Array(bytes.buffer.slice(start, start + length * 4));
}

function uint32View(bytes: Buffer, byteOffset: number, length: number): Uint32Array {
  const start = bytes.byteOffset + byteOffset;
  if (start % 4 === 0) return new Uint32Array(bytes.buffer, start, length);
  return new Uint32Array(bytes.buffer.slice(start, start + length * 4));
}

function isMissingFile(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
  // The format is little-endian and read without byte swapping.
  throw new Error('docs-chat embedded index needs a little-endian platform.');
}

/**
 * A chunk's `indexText` is its heading line, a blank line and its `text`:
 * storing only the heading line halves what a large index holds on disk and
 * in memory. Payloads whose text does not follow that shape are kept whole.
 */
type StoredPayload = ChunkPayload | (Omit<ChunkPayload, 'indexText'> & { indexPrefix: string });

const TEXT_JOINER = '\n\n';

function compactPayload(payload: ChunkPayload): StoredPayload {
  const { indexText, ...rest } = payload;
  if (!indexText.endsWith(`${TEXT_JOINER}${payload.text}`)) return payload;
  return { ...rest, indexPrefix: indexText.slice(0, indexText.length - payload.text.length - TEXT_JOINER.length) };
}

function expandPayload(stored: StoredPayload): ChunkPayload {
  if (!('indexPrefix' in stored)) return stored;
  const { indexPrefix, ...rest } = stored;
  return { ...rest, indexText: `${indexPrefix}${TEXT_JOINER}${stored.text}` };
}
