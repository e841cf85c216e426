/**
 * Ranking arithmetic the embedded store shares with Qdrant, so that numbers
 * measured on one backend carry over to the other. Both formulas follow
 * Qdrant's own source:
 * - IDF: `lib/segment/src/data_types/query_context.rs` (`fancy_idf`), applied
 *   to the query weights of a sparse vector declared with `modifier: idf`.
 * - RRF: `lib/segment/src/common/reciprocal_rank_fusion.rs`
 *   (`DEFAULT_RRF_K = 2`, position zero-based).
 */

/** Qdrant's default RRF constant. */
export const RRF_K = 2;

/**
 * BM25's inverse document frequency, as Qdrant computes it from collection
 * statistics: `ln((n - df + 0.5) / (df + 0.5) + 1)`, where `n` counts points
 * holding the sparse vector and `df` those whose vector has the index.
 */
export function inverseDocumentFrequency(pointCount: number, documentFrequency: number): number {
  return Math.log((pointCount - documentFrequency + 0.5) / (documentFrequency + 0.5) + 1);
}

/** Contribution of one list position (zero-based) to a fused score. */
export function reciprocalRankScore(position: number, k: number = RRF_K): number {
  return 1 / (position + k);
}

export interface RankedId {
  id: string;
  score: number;
}

/**
 * Reciprocal Rank Fusion over ranked lists (best first): sum of
 * `1 / (k + position)` over the lists holding an id. Qdrant leaves ties in
 * arbitrary order; we break them by the best position reached in any list,
 * then by id, so results are reproducible.
 */
export function fuseReciprocalRanks(lists: readonly (readonly RankedId[])[], limit: number, k: number = RRF_K): RankedId[] {
  const fused = new Map<string, { score: number; bestPosition: number }>();
  for (const list of lists) {
    list.forEach((hit, position) => {
      const entry = fused.get(hit.id);
      const contribution = reciprocalRankScore(position, k);
      if (entry) {
        entry.score += contribution;
        entry.bestPosition = Math.min(entry.bestPosition, position);
      } else {
        fused.set(hit.id, { score: contribution, bestPosition: position });
      }
    });
  }
  return [...fused.entries()]
    .sort(([idA, a], [idB, b]) => b.score - a.score || a.bestPosition - b.bestPosition || compareIds(idA, idB))
    .slice(0, limit)
    .map(([id, { score }]) => ({ id, score }));
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Keeps the `capacity` best (slot, score) pairs seen, in a binary min-heap over
 * preallocated typed arrays: one instance is reused across queries, so a search
 * allocates nothing proportional to the index size.
 */
export class TopK {
  private slots: Int32Array;
  private scores: Float64Array;
  private size = 0;
  private capacity = 0;

  constructor(initialCapacity = 64) {
    this.slots = new Int32Array(initialCapacity);
    this.scores = new Float64Array(initialCapacity);
  }

  reset(capacity: number): void {
    if (capacity > this.slots.length) {
      this.slots = new Int32Array(capacity);
      this.scores = new Float64Array(capacity);
    }
    this.capacity = capacity;
    this.size = 0;
  }

  /** Smallest score kept, or -Infinity while the heap is not full. */
  get threshold(): number {
    return this.size < this.capacity ? -Infinity : (this.scores[0] as number);
  }

  /** Offers a candidate; `worseThan(slotA, slotB)` breaks exact score ties. */
  offer(slot: number, score: number, tieBreakWorse: (a: number, b: number) => boolean): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let index = this.size++;
      this.slots[index] = slot;
      this.scores[index] = score;
      // Sift up: the root holds the worst kept candidate.
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!this.isWorse(index, parent, tieBreakWorse)) break;
        this.swap(index, parent);
        index = parent;
      }
      return;
    }
    const rootScore = this.scores[0] as number;
    if (score < rootScore) return;
    if (score === rootScore && !tieBreakWorse(this.slots[0] as number, slot)) return;
    this.slots[0] = slot;
    this.scores[0] = score;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let worst = index;
      if (left < this.size && this.isWorse(left, worst, tieBreakWorse)) worst = left;
      if (right < this.size && this.isWorse(right, worst, tieBreakWorse)) worst = right;
      if (worst === index) break;
      this.swap(index, worst);
      index = worst;
    }
  }

  /** Kept candidates, best first. */
  drain(tieBreakWorse: (a: number, b: number) => boolean): Array<{ slot: number; score: number }> {
    const out: Array<{ slot: number; score: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i] as number, score: this.scores[i] as number });
    out.sort((a, b) => b.score - a.score || (tieBreakWorse(a.slot, b.slot) ? 1 : tieBreakWorse(b.slot, a.slot) ? -1 : 0));
    this.size = 0;
    return out;
  }

  private isWorse(i: number, j: number, tieBreakWorse: (a: number, b: number) => boolean): boolean {
    const a = this.scores[i] as number;
    const b = this.scores[j] as number;
    return a < b || (a === b && tieBreakWorse(this.slots[i] as number, this.slots[j] as number));
  }

  private swap(i: number, j: number): void {
    const slot = this.slots[i] as number;
    this.slots[i] = this.slots[j] as number;
    this.slots[j] = slot;
    const score = this.scores[i] as number;
    this.scores[i] = this.scores[j] as number;
    this.scores[j] = score;
  }
}

/** Returns a unit-length copy (Qdrant normalises vectors of a Cosine collection the same way). */
export function normalised(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const out = new Float32Array(vector.length);
  const norm = Math.sqrt(sum);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}
