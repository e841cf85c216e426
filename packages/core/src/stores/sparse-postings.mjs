// Turns sparse vectors held row by row (CSR: row r is offsets[r]..offsets[r+1]
// of indices/values) into postings: for each distinct term, in ascending
// order, the rows holding it and their values. Shared by the embedded store
// (embedded-store.ts) and the thread that checks a snapshot while it loads
// (snapshot-check-worker.mjs), hence plain JavaScript: a worker does not inherit
// the TypeScript loader of the process that starts it.
//
// Terms are looked up in an open-addressing table of typed arrays rather than
// a Map. Budget: inverting the page vectors of a 50,000-chunk index (2.7
// million entries) took 450 ms with a Map, one block of the event loop.

const EMPTY = -1;

/** Grows with the distinct terms: term -> ordinal in first-seen order. */
class TermTable {
  constructor() {
    this.allocate(1 << 12);
    this.size = 0;
    this.terms = new Uint32Array(1 << 11);
  }

  allocate(capacity) {
    this.keys = new Uint32Array(capacity);
    this.ordinals = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    // Fibonacci hashing: the product's high bits, which depend on every bit of the term.
    this.shift = 32 - Math.log2(capacity);
  }

  /** The table slot of `term`: where it is, or the empty slot where it belongs. */
  find(term) {
    let at = Math.imul(term, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const ordinal = this.ordinals[at];
      if (ordinal === EMPTY || this.keys[at] === term) return at;
      at = (at + 1) & this.mask;
    }
  }

  /** The ordinal of `term`, adding it when new. */
  ordinalOf(term) {
    const at = this.find(term);
    const known = this.ordinals[at];
    if (known !== EMPTY) return known;
    const ordinal = this.size++;
    if (ordinal === this.terms.length) {
      const grown = new Uint32Array(this.terms.length * 2);
      grown.set(this.terms);
      this.terms = grown;
    }
    this.terms[ordinal] = term;
    this.keys[at] = term;
    this.ordinals[at] = ordinal;
    // Keep the table at most half full, so probes stay short.
    if (this.size * 2 > this.keys.length) this.rehash();
    return ordinal;
  }

  /** The ordinal of a term known to be present. */
  existing(term) {
    return this.ordinals[this.find(term)];
  }

  rehash() {
    const { keys, ordinals } = this;
    this.allocate(keys.length * 2);
    for (let at = 0; at < keys.length; at++) {
      if (ordinals[at] === EMPTY) continue;
      const slot = this.find(keys[at]);
      this.keys[slot] = keys[at];
      this.ordinals[slot] = ordinals[at];
    }
  }
}

/**
 * @param {Uint32Array} rowOffsets count + 1 offsets
 * @param {Uint32Array} indices term of each entry
 * @param {Float32Array} rowValues value of each entry
 * @param {number} count rows
 * @returns {{ terms: Uint32Array; offsets: Uint32Array; slots: Uint32Array; values: Float32Array }}
 */
export function invertSparse(rowOffsets, indices, rowValues, count) {
  const nonZeros = rowOffsets[count];
  const table = new TermTable();
  let counts = new Uint32Array(1 << 11);
  for (let i = 0; i < nonZeros; i++) {
    const ordinal = table.ordinalOf(indices[i]);
    if (ordinal >= counts.length) {
      const grown = new Uint32Array(counts.length * 2);
      grown.set(counts);
      counts = grown;
    }
    counts[ordinal] += 1;
  }
  const distinct = table.size;
  const terms = table.terms.slice(0, distinct).sort();
  // Each term's run starts where the runs of the smaller terms end; cursor[ordinal] walks its run.
  const offsets = new Uint32Array(distinct + 1);
  const cursor = new Uint32Array(distinct);
  for (let rank = 0; rank < distinct; rank++) {
    const ordinal = table.existing(terms[rank]);
    cursor[ordinal] = offsets[rank];
    offsets[rank + 1] = offsets[rank] + counts[ordinal];
  }
  const slots = new Uint32Array(nonZeros);
  const values = new Float32Array(nonZeros);
  for (let row = 0; row < count; row++) {
    const end = rowOffsets[row + 1];
    for (let i = rowOffsets[row]; i < end; i++) {
      const ordinal = table.existing(indices[i]);
      const position = cursor[ordinal]++;
      slots[position] = row;
      values[position] = rowValues[i];
    }
  }
  return { terms, offsets, slots, values };
}
