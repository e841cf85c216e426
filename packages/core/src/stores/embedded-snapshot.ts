/**
 * On-disk snapshot of the embedded index, under `${dataDir}/index/<collection>/`:
 *
 * - `vectors-<id>.f32`   count x dimensions float32, little-endian, one contiguous block
 * - `postings-<id>.bin`  the sparse vectors as postings: uint32 terms[T] (ascending),
 *                        uint32 offsets[T + 1], uint32 slots[nnz], float32 values[nnz]
 * - `points-<id>.json`   `{ ids, files, fileOfSlot, orderOfSlot, pages }`: what search
 *                        needs of every point in memory (id, file, doc id, order)
 * - `payloads-<id>.jsonl` one payload per line in slot order, read on demand: a
 *                        searching process keeps only the lines it was asked for
 * - `pages-<id>.bin`     the page vectors, uint32 offsets[P + 1], uint32 indices, float32 values
 * - `manifest.json`      format version, meta, counts, and name/size/SHA-256 of each file
 *
 * Postings are stored rather than per-point vectors because search walks
 * postings: a reader loads them as they are, and only a writer turns them
 * back into per-point vectors.
 *
 * A commit writes the data files under a fresh snapshot id, then swaps the
 * manifest in with a rename: readers see the old snapshot or the new one,
 * never a mix, and a writer killed mid-way leaves the old one serving. A
 * reader keeps its payload file open, so a commit that removes the file does
 * not pull it from under a search.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DocsChatError } from '../errors.js';
import { processIsAlive } from '../locks/pid-lock-file.js';
import { DenseMatrix } from './dense-matrix.js';
import { checkSnapshotFiles, type FileCheck, type SnapshotChecks } from './snapshot-checks.js';
import { isIndexMeta, REBUILD_HINT } from './index-meta.js';
import type { ChunkPayload, IndexMeta } from './vector-store.js';

export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'docs-chat/embedded-index';
/** 2: page vectors (pages-<id>.bin). 3: postings on disk, payloads read on demand (payloads-<id>.jsonl). */
const FORMAT_VERSION = 3;
const DATA_FILE = /^(vectors|postings|points|payloads|pages)-[0-9a-f-]+\.(f32|bin|json|jsonl)$/;
/** Bytes read at a time when scanning or copying the payload file. */
const READ_BLOCK = 1 << 20;
const DATA_FILES = ['vectors', 'postings', 'points', 'pages', 'payloads'] as const;
type DataFileName = (typeof DATA_FILES)[number];

/** Postings in CSR form: the postings of `terms[t]` are [offsets[t], offsets[t+1]). */
export interface Postings {
  terms: Uint32Array;
  offsets: Uint32Array;
  slots: Uint32Array;
  values: Float32Array;
}

/** What every point shares with the other chunks of its file. */
export interface FileKey {
  file: string;
  docId: string;
  fileHash: string;
}

export interface StoredPage {
  file: string;
  docId: string;
  indices: Uint32Array;
  values: Float32Array;
}

/** What a snapshot holds, as read back. */
export interface SnapshotData {
  meta: IndexMeta;
  ids: string[];
  files: FileKey[];
  /** Per slot: index into `files`. */
  fileOfSlot: Uint32Array;
  /** Per slot: the chunk's position in its document. */
  orderOfSlot: Uint32Array;
  /** count x meta.dimensions, read straight into the matrix search scans. */
  vectors: DenseMatrix;
  postings: Postings;
  /** The payload file, open, with where each slot's line starts. */
  payloads: PayloadFile;
  pages: StoredPage[];
  /** Postings of `pages` (in this order), worked out while loading; absent in what a writer hands over. */
  pageIndex?: Postings;
}

/** What a commit writes: as SnapshotData, with each slot's payload line supplied by the writer. */
export interface SnapshotToWrite extends Omit<SnapshotData, 'payloads' | 'vectors' | 'pageIndex'> {
  /** count x meta.dimensions. */
  vectors: Float32Array;
  /** The JSON line (no newline) of each slot's payload, in slot order. */
  payloadLines(): Iterable<Buffer>;
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
  terms: number;
  nonZeros: number;
  pageNonZeros: number;
  files: { vectors: FileEntry; postings: FileEntry; points: FileEntry; payloads: FileEntry; pages: FileEntry };
}

/**
 * The open payload file of a snapshot: one JSON line per slot, read on demand.
 * Stays usable after a newer commit deletes the file (the handle keeps it).
 */
export class PayloadFile {
  private closing: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly handle: FileHandle,
    /** count + 1 byte offsets: line s is [starts[s], starts[s + 1] - 1). */
    readonly lineStarts: Float64Array,
  ) {}

  /**
   * The raw JSON line of `line` (without its newline). Read synchronously: a
   * line is a kilobyte or two, almost always in the page cache, and a direct
   * read costs microseconds where a trip through the thread pool costs far
   * more for the fifty lines a search asks for.
   */
  readLine(line: number): Buffer {
    const start = this.lineStarts[line] as number;
    const length = (this.lineStarts[line + 1] as number) - start - 1;
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const bytesRead = readSync(this.handle.fd, buffer, done, length - done, start + done);
      if (bytesRead === 0) throw new Error(`payload line ${line} ends early`);
      done += bytesRead;
    }
    return buffer;
  }

  /** Parses line `line` into a payload. */
  readPayload(line: number): ChunkPayload {
    return expandPayload(JSON.parse(this.readLine(line).toString('utf8')) as StoredPayload);
  }

  /** The whole file (for a commit, which rewrites every line). */
  async readAll(): Promise<Buffer> {
    const size = this.lineStarts[this.lineStarts.length - 1] as number;
    const buffer = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await this.handle.read(buffer, done, size - done, done);
      if (bytesRead === 0) throw new Error('payload file ends early');
      done += bytesRead;
    }
    return buffer;
  }

  /** Closes the file after a grace period, for a commit of the replaced state that may still be copying from it. */
  closeLater(delayMs = 60_000): void {
    if (this.closing || this.closed) return;
    this.closing = setTimeout(() => void this.close(), delayMs);
    this.closing.unref();
  }

  async close(): Promise<void> {
    if (this.closing) clearTimeout(this.closing);
    if (this.closed) return;
    this.closed = true;
    await this.handle.close().catch(() => undefined);
  }
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
  // A writer killed mid-commit leaves temporary files; a run with nothing to commit would never sweep them.
  await removeDeadWritersFiles(directory);
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
  const { count, terms, nonZeros, pageNonZeros, meta, files } = manifest;
  const counts = [count, terms, nonZeros, pageNonZeros];
  if (!isIndexMeta(meta) || !counts.every((value) => Number.isInteger(value) && value >= 0) || !files) {
    throw corrupt(directory, 'manifest.json lacks its counts or index meta');
  }
  if (files.vectors?.bytes !== count * meta.dimensions * 4) {
    throw corrupt(directory, `${files.vectors?.name ?? 'the vector file'} does not hold ${count} vectors of ${meta.dimensions} dimensions`);
  }
  // Every file is opened (and kept open) first, so a commit racing this read cannot remove one from under us;
  // the payload file stays open for the life of the loaded state.
  const handles: FileHandle[] = [];
  let checks: SnapshotChecks | null = null;
  let loaded = false;
  try {
    for (const name of DATA_FILES) handles.push(await openChecked(directory, files[name]));
    // Checksums, the slot range check and the page postings are worked out on a worker thread while this one
    // reads, so loading a large index never stalls the event loop.
    const slotsFrom = terms * 8 + 4;
    const pagesInFile = (files.pages.bytes - pageNonZeros * 8) / 4 - 1;
    checks = checkSnapshotFiles(
      handles.map((handle, i) => {
        const name = DATA_FILES[i] as DataFileName;
        return {
          fd: handle.fd,
          bytes: files[name].bytes,
          ...(name === 'postings' ? { slotsBelow: { from: slotsFrom, to: slotsFrom + nonZeros * 4, bound: count } } : {}),
          ...(name === 'pages' && Number.isInteger(pagesInFile) && pagesInFile >= 0
            ? { invertPages: { pageCount: pagesInFile, nonZeros: pageNonZeros } }
            : {}),
        };
      }),
    );
    const [vectorHandle, postingHandle, pointHandle, pageHandle, payloadHandle] = handles as [
      FileHandle,
      FileHandle,
      FileHandle,
      FileHandle,
      FileHandle,
    ];
    const vectors = new DenseMatrix(meta.dimensions, count);
    const [, postingBytes, pointBytes, pageBytes, lineStarts] = await Promise.all([
      // Read in place: a second copy of every vector would double the load's peak memory.
      readWhole(directory, files.vectors, vectorHandle, vectors.bytes(count)),
      readWhole(directory, files.postings, postingHandle),
      readWhole(directory, files.points, pointHandle),
      readWhole(directory, files.pages, pageHandle),
      scanPayloadLines(directory, files.payloads, payloadHandle, count),
    ]);
    // While the worker finishes its checks: otherwise the first search after the load pays for these page faults.
    await vectors.touchPages(count);
    const checked = await Promise.all(
      checks.results.map(async (result, i): Promise<FileCheck> => {
        const entry = files[DATA_FILES[i] as DataFileName];
        let check: FileCheck;
        try {
          check = await result;
        } catch (error) {
          if (error instanceof DocsChatError) throw error;
          throw corrupt(directory, `${entry.name} ${describe(error)}`);
        }
        if (check.sha256 !== entry.sha256) throw corrupt(directory, `${entry.name} does not match its checksum`);
        return check;
      }),
    );
    if (postingBytes.byteLength !== terms * 4 + (terms + 1) * 4 + nonZeros * 8) {
      throw corrupt(directory, `${files.postings.name} has the wrong size`);
    }
    const postings: Postings = {
      terms: uint32View(postingBytes, 0, terms),
      offsets: uint32View(postingBytes, terms * 4, terms + 1),
      slots: uint32View(postingBytes, terms * 8 + 4, nonZeros),
      values: float32View(postingBytes, terms * 8 + 4 + nonZeros * 4, nonZeros),
    };
    if (postings.offsets[terms] !== nonZeros) throw corrupt(directory, `${files.postings.name} offsets do not add up`);
    if (checked[DATA_FILES.indexOf('postings')]?.slotsInRange !== true) {
      throw corrupt(directory, `${files.postings.name} names a point that does not exist`);
    }

    const points = parsePoints(directory, files.points.name, pointBytes, count);
    const pageCount = points.pages.length;
    if (pageBytes.byteLength !== (pageCount + 1) * 4 + pageNonZeros * 8) throw corrupt(directory, `${files.pages.name} has the wrong size`);
    const pageOffsets = uint32View(pageBytes, 0, pageCount + 1);
    const pageIndices = uint32View(pageBytes, (pageCount + 1) * 4, pageNonZeros);
    const pageValues = float32View(pageBytes, (pageCount + 1) * 4 + pageNonZeros * 4, pageNonZeros);
    if (pageOffsets[pageCount] !== pageNonZeros) throw corrupt(directory, `${files.pages.name} offsets do not add up`);
    const pages: StoredPage[] = points.pages.map((key, i) => ({
      file: key.file,
      docId: key.docId,
      indices: pageIndices.subarray(pageOffsets[i] as number, pageOffsets[i + 1] as number),
      values: pageValues.subarray(pageOffsets[i] as number, pageOffsets[i + 1] as number),
    }));
    const pageIndex = checked[DATA_FILES.indexOf('pages')]?.pageIndex;
    const result = {
      snapshotId: manifest.snapshotId,
      data: {
        meta,
        ids: points.ids,
        files: points.files,
        fileOfSlot: points.fileOfSlot,
        orderOfSlot: points.orderOfSlot,
        vectors,
        postings,
        payloads: new PayloadFile(payloadHandle, lineStarts),
        pages,
        ...(pageIndex ? { pageIndex } : {}),
      },
    };
    loaded = true;
    return result;
  } finally {
    // The checking thread reads through these descriptors: it stops before any of them closes.
    await checks?.stop();
    const keep = loaded ? handles.length - 1 : handles.length;
    await Promise.all(handles.slice(0, keep).map((handle) => handle.close().catch(() => undefined)));
  }
}

function parsePoints(
  directory: string,
  name: string,
  bytes: Buffer,
  count: number,
): { ids: string[]; files: FileKey[]; fileOfSlot: Uint32Array; orderOfSlot: Uint32Array; pages: Array<{ file: string; docId: string }> } {
  let points: { ids?: unknown; files?: unknown; fileOfSlot?: unknown; orderOfSlot?: unknown; pages?: unknown };
  try {
    points = JSON.parse(bytes.toString('utf8')) as typeof points;
  } catch {
    throw corrupt(directory, `${name} is not valid JSON`);
  }
  const { ids, files, fileOfSlot, orderOfSlot, pages } = points;
  if (!Array.isArray(ids) || ids.length !== count || !ids.every((id) => typeof id === 'string'))
    throw corrupt(directory, `${name} does not hold ${count} point ids`);
  if (!Array.isArray(files) || !files.every(isFileKey)) throw corrupt(directory, `${name} lacks its file list`);
  const isSlotColumn = (column: unknown, bound: number): column is number[] =>
    Array.isArray(column) && column.length === count && column.every((value) => Number.isInteger(value) && value >= 0 && value < bound);
  if (!isSlotColumn(fileOfSlot, files.length) || !isSlotColumn(orderOfSlot, 2 ** 32))
    throw corrupt(directory, `${name} lacks the file or order of its points`);
  if (!Array.isArray(pages) || !pages.every(isPageKey)) throw corrupt(directory, `${name} lacks its page list`);
  return { ids, files, fileOfSlot: Uint32Array.from(fileOfSlot), orderOfSlot: Uint32Array.from(orderOfSlot), pages };
}

/** Opens a data file named by the manifest and checks its size. */
async function openChecked(directory: string, entry: FileEntry | undefined): Promise<FileHandle> {
  checkEntry(directory, entry);
  const handle = await open(join(directory, entry.name), 'r');
  try {
    const { size } = await handle.stat();
    if (size !== entry.bytes) throw corrupt(directory, `${entry.name} holds ${size} bytes, the manifest says ${entry.bytes} (truncated?)`);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** Finds where each line of the payload file starts, reading it once in blocks. */
async function scanPayloadLines(directory: string, entry: FileEntry, handle: FileHandle, count: number): Promise<Float64Array> {
  const lineStarts = new Float64Array(count + 1);
  let lines = 0;
  const block = Buffer.allocUnsafe(READ_BLOCK);
  for (let position = 0; position < entry.bytes;) {
    const { bytesRead } = await handle.read(block, 0, Math.min(READ_BLOCK, entry.bytes - position), position);
    if (bytesRead === 0) throw corrupt(directory, `${entry.name} ends early`);
    const chunk = block.subarray(0, bytesRead);
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      if (lines >= count) throw corrupt(directory, `${entry.name} holds more than ${count} payloads`);
      lines += 1;
      lineStarts[lines] = position + at + 1;
    }
    position += bytesRead;
  }
  if (lines !== count) throw corrupt(directory, `${entry.name} holds ${lines} payloads, not ${count}`);
  return lineStarts;
}

function isFileKey(value: unknown): value is FileKey {
  const key = value as Partial<Record<keyof FileKey, unknown>> | null;
  return isPageKey(value) && typeof key?.fileHash === 'string';
}

function isPageKey(value: unknown): value is { file: string; docId: string } {
  const key = value as { file?: unknown; docId?: unknown } | null;
  return typeof key === 'object' && key !== null && typeof key.file === 'string' && typeof key.docId === 'string';
}

/** Writes a new snapshot and makes it current; returns the new manifest stamp. */
export async function writeSnapshot(directory: string, data: SnapshotToWrite): Promise<string> {
  await mkdir(directory, { recursive: true });
  const count = data.ids.length;
  const { postings } = data;
  const terms = postings.terms.length;
  const nonZeros = postings.slots.length;
  const snapshotId = randomUUID();

  const postingBuffer = Buffer.alloc(terms * 8 + 4 + nonZeros * 8);
  bytesOf(postings.terms).copy(postingBuffer, 0);
  bytesOf(postings.offsets).copy(postingBuffer, terms * 4);
  bytesOf(postings.slots).copy(postingBuffer, terms * 8 + 4);
  bytesOf(postings.values).copy(postingBuffer, terms * 8 + 4 + nonZeros * 4);

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

  const pointsJson = JSON.stringify({
    ids: data.ids,
    files: data.files,
    fileOfSlot: Array.from(data.fileOfSlot),
    orderOfSlot: Array.from(data.orderOfSlot),
    pages: data.pages.map(({ file, docId }) => ({ file, docId })),
  });
  // The payload lines stream to disk (a large index has hundreds of MB of them); the rest is written whole.
  const payloads = await writeLinesDurably(directory, `payloads-${snapshotId}.jsonl`, data.payloadLines(), count);
  const [vectors, postingsEntry, points, pages] = await Promise.all([
    writeDurably(directory, `vectors-${snapshotId}.f32`, bytesOf(data.vectors.subarray(0, count * data.meta.dimensions))),
    writeDurably(directory, `postings-${snapshotId}.bin`, postingBuffer),
    writeDurably(directory, `points-${snapshotId}.json`, Buffer.from(pointsJson)),
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
    terms,
    nonZeros,
    pageNonZeros,
    files: { vectors, postings: postingsEntry, points, payloads, pages },
  };
  // The rename of the manifest is the commit point.
  await writeDurably(directory, MANIFEST_FILE, Buffer.from(JSON.stringify(manifest, null, 2)));
  await syncDirectory(directory);
  const stamp = await manifestStamp(directory);
  await removeStaleFiles(directory, new Set([vectors.name, postingsEntry.name, points.name, payloads.name, pages.name]));
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

/** Writes one line per item (each followed by a newline) in blocks, hashing as it goes. */
async function writeLinesDurably(directory: string, name: string, lines: Iterable<Buffer>, expected: number): Promise<FileEntry> {
  const temporary = join(directory, `.${name}.${process.pid}.${randomUUID()}.tmp`);
  const handle = await open(temporary, 'w');
  const hash = createHash('sha256');
  let bytes = 0;
  let written = 0;
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (): Promise<void> => {
      const block = Buffer.concat(pending, pendingBytes);
      hash.update(block);
      await handle.write(block);
      bytes += block.length;
      pending = [];
      pendingBytes = 0;
    };
    const newline = Buffer.from('\n');
    for (const line of lines) {
      pending.push(line, newline);
      pendingBytes += line.length + 1;
      written += 1;
      if (pendingBytes >= READ_BLOCK) await flush();
    }
    await flush();
    if (written !== expected) throw new Error(`wrote ${written} payloads for ${expected} points`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, join(directory, name));
  return { name, bytes, sha256: hash.digest('hex') };
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
      // A file another process still holds open may refuse removal on some platforms: the next commit retries.
      if (DATA_FILE.test(entry) && !keep.has(entry)) {
        await rm(path, { force: true }).catch(() => undefined);
      } else if (entry.endsWith('.tmp')) {
        // Leftovers of a writer killed mid-commit. The writer's pid is in the name: a file of a process
        // that is gone goes at once; one of a live process (another ingest) only once it is an hour old.
        const writer = writerPidOf(entry);
        if (writer !== undefined && writer !== process.pid && !processIsAlive(writer)) {
          await rm(path, { force: true }).catch(() => undefined);
          return;
        }
        const info = await stat(path).catch(() => null);
        if (info && info.mtimeMs < hourAgo) await rm(path, { force: true }).catch(() => undefined);
      }
    }),
  );
}

/** Removes the temporary files of writers that are gone (their pid is in the name); those of live writers stay. */
async function removeDeadWritersFiles(directory: string): Promise<void> {
  const entries = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(
    entries.map(async (entry) => {
      const writer = entry.endsWith('.tmp') ? writerPidOf(entry) : undefined;
      if (writer !== undefined && writer !== process.pid && !processIsAlive(writer))
        await rm(join(directory, entry), { force: true }).catch(() => undefined);
    }),
  );
}

/** The pid in a temporary file name `.<name>.<pid>.<uuid>.tmp` (see writeDurably). */
function writerPidOf(entry: string): number | undefined {
  const match = /\.(\d+)\.[0-9a-f-]{36}\.tmp$/.exec(entry);
  return match ? Number(match[1]) : undefined;
}

function checkEntry(directory: string, entry: FileEntry | undefined): asserts entry is FileEntry {
  if (!entry || typeof entry.name !== 'string' || !DATA_FILE.test(entry.name)) {
    throw corrupt(directory, 'manifest.json names an invalid data file');
  }
}

/** Reads an open data file whole, into `target` when given (which must have the file's size). */
async function readWhole(directory: string, entry: FileEntry, handle: FileHandle, target?: Uint8Array): Promise<Buffer> {
  const bytes = target ?? Buffer.allocUnsafe(entry.bytes);
  if (bytes.byteLength !== entry.bytes)
    throw corrupt(directory, `${entry.name} holds ${entry.bytes} bytes, not the ${bytes.byteLength} its counts call for`);
  let done = 0;
  while (done < bytes.byteLength) {
    const { bytesRead } = await handle.read(bytes, done, bytes.byteLength - done, done);
    if (bytesRead === 0) throw corrupt(directory, `${entry.name} ends early`);
    done += bytesRead;
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
 * storing only the heading line halves what a large index holds on disk.
 * Payloads whose text does not follow that shape are kept whole.
 */
type StoredPayload = ChunkPayload | (Omit<ChunkPayload, 'indexText'> & { indexPrefix: string });

const TEXT_JOINER = '\n\n';

/** The JSON line a payload is stored as. */
export function payloadLine(payload: ChunkPayload): Buffer {
  return Buffer.from(JSON.stringify(compactPayload(payload)));
}

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
