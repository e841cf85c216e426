/**
 * The embedded store's dense vectors: one row-major float32 matrix, scanned
 * against a query in WebAssembly SIMD (dense-scan.wat), four lanes at a
 * time: about four times faster than the best plain-JavaScript loop, which is
 * what keeps exact search over tens of thousands of chunks within a few tens
 * of milliseconds. Scores are float32 sums, as Qdrant computes them. Where
 * WebAssembly SIMD is unavailable the same scan runs in JavaScript.
 *
 * The rows live in the module's linear memory, laid out as
 * [rows: capacity x dimensions][query: dimensions][scores: capacity].
 * Growing the matrix grows the memory, which replaces its ArrayBuffer: views
 * handed out earlier must not be kept across writes.
 */
import { DENSE_SCAN_WASM_BASE64 } from './dense-scan-wasm.js';

const PAGE_BYTES = 65_536;
/** Bytes whose pages touchPages() reads per turn of the event loop. */
const TOUCH_SLICE_BYTES = 1 << 22;

/** The part of the WebAssembly API used here (the project's TypeScript libs carry no DOM types). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

interface ScanExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scan(query: number, rows: number, count: number, dimensions: number, out: number): void;
}

const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let compiled: object | null | undefined;

/** The compiled scan module, or null where this runtime lacks WebAssembly SIMD. */
function scanModule(): object | null {
  if (compiled === undefined) {
    const bytes = Buffer.from(DENSE_SCAN_WASM_BASE64, 'base64');
    compiled = wasmApi && wasmApi.validate(bytes) ? new wasmApi.Module(bytes) : null;
  }
  return compiled;
}

export interface DenseMatrixOptions {
  /** Use the JavaScript scan even where WebAssembly SIMD is available (tests compare the two). */
  javascriptOnly?: boolean;
}

export class DenseMatrix {
  private exports: ScanExports | null;
  private buffer: ArrayBuffer;
  private capacity = 0;
  private rowsView = new Float32Array(0);

  constructor(
    readonly dimensions: number,
    initialRows: number,
    options: DenseMatrixOptions = {},
  ) {
    const module = options.javascriptOnly ? null : scanModule();
    // SIMD loads need rows of whole 16-byte lanes.
    this.exports = wasmApi && module && dimensions % 4 === 0 ? (new wasmApi.Instance(module).exports as ScanExports) : null;
    this.buffer = this.exports ? this.exports.memory.buffer : new ArrayBuffer(0);
    this.ensureCapacity(Math.max(initialRows, 1));
  }

  /** True when scans run in WebAssembly SIMD. */
  get accelerated(): boolean {
    return this.exports !== null;
  }

  /** Rows 0..rows-1 as one contiguous view (valid until the matrix grows). */
  rows(rows: number): Float32Array {
    return this.rowsView.subarray(0, rows * this.dimensions);
  }

  /** Bytes of rows 0..rows-1, to be filled in place (e.g. read from a file). */
  bytes(rows: number): Uint8Array {
    this.ensureCapacity(rows);
    return new Uint8Array(this.buffer, 0, rows * this.dimensions * 4);
  }

  /**
   * Reads one byte of each memory page of rows 0..rows-1, 4 MB at a time between turns of the event loop. Here
   * the first pass over WebAssembly memory that a file read had just filled still took a page fault per page:
   * 105-150 ms for 50,000 x 384 rows, all of it inside the first search after an index load (measured with
   * eval/src/bench-retrieval.ts --synthetic). Done while loading, no turn of the event loop takes over 7 ms.
   * Returns the sum of the bytes read, which nobody needs: returning it keeps the reads from being optimised away.
   */
  async touchPages(rows: number): Promise<number> {
    const bytes = this.bytes(rows);
    let sink = 0;
    for (let offset = 0; offset < bytes.byteLength;) {
      const end = Math.min(bytes.byteLength, offset + TOUCH_SLICE_BYTES);
      for (; offset < end; offset += 4096) sink += bytes[offset] as number;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return sink;
  }

  setRow(slot: number, vector: Float32Array): void {
    this.ensureCapacity(slot + 1);
    this.rowsView.set(vector, slot * this.dimensions);
  }

  copyRow(from: number, to: number): void {
    const d = this.dimensions;
    this.rowsView.copyWithin(to * d, from * d, (from + 1) * d);
  }

  /** Dot product of `query` with each of rows 0..count-1 (a view, valid until the next scan or growth). */
  scores(query: Float32Array, count: number): Float32Array {
    const d = this.dimensions;
    const queryOffset = this.capacity * d * 4;
    const scoresOffset = queryOffset + d * 4;
    if (this.exports) {
      new Float32Array(this.buffer, queryOffset, d).set(query);
      this.exports.scan(queryOffset, 0, count, d, scoresOffset);
      return new Float32Array(this.buffer, scoresOffset, count);
    }
    const out = new Float32Array(this.buffer, scoresOffset, count);
    const rows = this.rowsView;
    for (let slot = 0, base = 0; slot < count; slot++, base += d) {
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let i = 0;
      for (; i + 4 <= d; i += 4) {
        a0 += (query[i] as number) * (rows[base + i] as number);
        a1 += (query[i + 1] as number) * (rows[base + i + 1] as number);
        a2 += (query[i + 2] as number) * (rows[base + i + 2] as number);
        a3 += (query[i + 3] as number) * (rows[base + i + 3] as number);
      }
      for (; i < d; i++) a0 += (query[i] as number) * (rows[base + i] as number);
      out[slot] = a0 + a1 + a2 + a3;
    }
    return out;
  }

  /** Makes room for `rows` rows, growing by half again so appends stay cheap; existing rows keep their place. */
  ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5) + 64);
    const d = this.dimensions;
    // Rows, then the query, then one score per row; 16-byte alignment holds since every part is a multiple of 16 bytes
    // when dimensions is a multiple of 4 (the SIMD case), and the JS case needs only 4.
    const needed = capacity * d * 4 + d * 4 + capacity * 4 + 16;
    if (this.exports) {
      const memory = this.exports.memory;
      if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE_BYTES));
      this.buffer = memory.buffer;
    } else {
      const grown = new ArrayBuffer(needed);
      new Float32Array(grown, 0, this.capacity * d).set(this.rowsView.subarray(0, this.capacity * d));
      this.buffer = grown;
    }
    this.capacity = capacity;
    this.rowsView = new Float32Array(this.buffer, 0, capacity * d);
  }
}
