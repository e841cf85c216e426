/**
 * Caches of document embeddings keyed by a content hash, so re-running an
 * ingest embeds only what changed and a killed ingest resumes where it
 * stopped. Query embeddings never go here (different task type).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Embedder } from './embedder.js';

export interface EmbeddingCache {
  /** The vectors found, by key; keys not cached are absent. */
  getMany(keys: string[]): Promise<Map<string, Float32Array>>;
  putMany(entries: { key: string; vector: Float32Array }[]): Promise<void>;
}

/** Cache keys are SHA-256 digests in hex (64 characters). */
const KEY_BYTES = 32;
const HEADER_BYTES = 16;
const MAGIC = Buffer.from('DCEMB001', 'latin1');

export function createMemoryEmbeddingCache(): EmbeddingCache & { readonly size: number } {
  const vectors = new Map<string, Float32Array>();
  return {
    get size() {
      return vectors.size;
    },
    async getMany(keys) {
      const found = new Map<string, Float32Array>();
      for (const key of keys) {
        const vector = vectors.get(key);
        if (vector) found.set(key, Float32Array.from(vector));
      }
      return found;
    },
    async putMany(entries) {
      for (const { key, vector } of entries) vectors.set(key, Float32Array.from(vector));
    },
  };
}

export interface FileEmbeddingCacheOptions {
  /** e.g. `${DATA_DIR}/embedding-cache` */
  directory: string;
  /** Provider, model and size name the file, so vectors of different embedders never mix. */
  embedder: Pick<Embedder, 'provider' | 'model' | 'dimensions'>;
}

/**
 * An append-only binary file, `<provider>-<model>-<dims>.bin`:
 * a 16-byte header (magic, dimensions), then fixed-size records of
 * key (32 bytes) + vector (float32 LE) + CRC-32 of both. A record torn by a
 * kill fails its length or checksum; loading drops it and everything after,
 * and trims the file so later appends stay aligned.
 */
export function createFileEmbeddingCache(options: FileEmbeddingCacheOptions): EmbeddingCache & { readonly file: string } {
  const { dimensions } = options.embedder;
  const file = path.join(options.directory, cacheFileName(options.embedder));
  const recordBytes = KEY_BYTES + dimensions * 4 + 4;
  let loaded: Promise<Map<string, Float32Array>> | undefined;
  let writes: Promise<void> = Promise.resolve();

  // Loaded on first use: opening the server for queries never pays for it.
  const load = (): Promise<Map<string, Float32Array>> => {
    loaded ??= readCacheFile(file, dimensions, recordBytes).catch((error: unknown) => {
      loaded = undefined; // let the next call try again (e.g. after fixing permissions)
      throw error;
    });
    return loaded;
  };

  return {
    file,
    async getMany(keys) {
      const vectors = await load();
      const found = new Map<string, Float32Array>();
      for (const key of keys) {
        const vector = vectors.get(key);
        if (vector) found.set(key, Float32Array.from(vector));
      }
      return found;
    },
    async putMany(entries) {
      const vectors = await load();
      const fresh = entries.filter(({ key }) => !vectors.has(key));
      if (fresh.length === 0) return;
      const buffer = Buffer.alloc(fresh.length * recordBytes);
      fresh.forEach(({ key, vector }, index) => {
        if (vector.length !== dimensions) {
          throw new RangeError(`Cannot cache a ${vector.length}-dimensional vector in a ${dimensions}-dimensional cache.`);
        }
        writeRecord(buffer, index * recordBytes, key, vector);
        vectors.set(key, Float32Array.from(vector));
      });
      // One append per batch, queued so concurrent batches never interleave bytes.
      const write = writes.then(() => fs.appendFile(file, buffer));
      writes = write.catch(() => undefined);
      await write;
    },
  };
}

export function cacheFileName(embedder: Pick<Embedder, 'provider' | 'model' | 'dimensions'>): string {
  const safe = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe(embedder.provider)}-${safe(embedder.model)}-${embedder.dimensions}.bin`;
}

function writeRecord(buffer: Buffer, offset: number, key: string, vector: Float32Array): void {
  if (!/^[0-9a-f]{64}$/.test(key)) throw new RangeError(`Embedding cache keys are SHA-256 hex digests, got "${key}".`);
  buffer.write(key, offset, KEY_BYTES, 'hex');
  for (let index = 0; index < vector.length; index += 1) {
    buffer.writeFloatLE(vector[index]!, offset + KEY_BYTES + index * 4);
  }
  const payloadEnd = offset + KEY_BYTES + vector.length * 4;
  buffer.writeUInt32LE(crc32(buffer.subarray(offset, payloadEnd)), payloadEnd);
}

async function readCacheFile(file: string, dimensions: number, recordBytes: number): Promise<Map<string, Float32Array>> {
  const vectors = new Map<string, Float32Array>();
  let content: Buffer;
  try {
    content = await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await startFile(file, dimensions, 'wx');
    return vectors;
  }
  if (
    content.length < HEADER_BYTES ||
    !content.subarray(0, MAGIC.length).equals(MAGIC) ||
    content.readUInt32LE(MAGIC.length) !== dimensions
  ) {
    // A torn header or a foreign file: a cache can always be rebuilt, so start afresh.
    await startFile(file, dimensions, 'w');
    return vectors;
  }
  let offset = HEADER_BYTES;
  while (offset + recordBytes <= content.length) {
    const payloadEnd = offset + recordBytes - 4;
    if (crc32(content.subarray(offset, payloadEnd)) !== content.readUInt32LE(payloadEnd)) break;
    const key = content.toString('hex', offset, offset + KEY_BYTES);
    const vector = new Float32Array(dimensions);
    for (let index = 0; index < dimensions; index += 1) vector[index] = content.readFloatLE(offset + KEY_BYTES + index * 4);
    vectors.set(key, vector);
    offset += recordBytes;
  }
  if (offset !== content.length) await fs.truncate(file, offset);
  return vectors;
}

/**
 * Writes the header of an empty cache file. `wx` for a file that was missing: two ingests sharing a cache
 * folder (a server's `/admin/ingest` and a compose job) may both find it missing, and the second must not
 * truncate what the first already appended.
 */
async function startFile(file: string, dimensions: number, flag: 'w' | 'wx'): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(dimensions, MAGIC.length);
  try {
    await fs.writeFile(file, header, { flag });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
