import { invertSparse } from './sparse-postings.mjs';

/** Rows as [term, value] pairs, packed into CSR form. */
function pack(rows: Array<Array<[number, number]>>): { offsets: Uint32Array; indices: Uint32Array; values: Float32Array } {
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((row, r) => (offsets[r + 1] = (offsets[r] as number) + row.length));
  const flat = rows.flat();
  return { offsets, indices: Uint32Array.from(flat, ([term]) => term), values: Float32Array.from(flat, ([, value]) => value) };
}

/** The postings spelled out: term -> [row, value] in row order, terms ascending. */
function reference(rows: Array<Array<[number, number]>>): Array<[number, Array<[number, number]>]> {
  const byTerm = new Map<number, Array<[number, number]>>();
  rows.forEach((row, r) => row.forEach(([term, value]) => byTerm.set(term, [...(byTerm.get(term) ?? []), [r, Math.fround(value)]])));
  return [...byTerm.entries()].sort(([a], [b]) => a - b);
}

function unpack(index: ReturnType<typeof invertSparse>): Array<[number, Array<[number, number]>]> {
  return Array.from(index.terms, (term, ordinal) => {
    const run: Array<[number, number]> = [];
    for (let p = index.offsets[ordinal] as number; p < (index.offsets[ordinal + 1] as number); p++) {
      run.push([index.slots[p] as number, index.values[p] as number]);
    }
    return [term, run];
  });
}

describe('invertSparse', () => {
  it('lists, for each term in ascending order, the rows holding it and their values', () => {
    const rows: Array<Array<[number, number]>> = [
      [
        [7, 0.5],
        [3, 1],
      ],
      [],
      [
        [3, 2],
        [4_000_000_000, 0.25],
      ],
      [[7, 1.5]],
    ];
    const { offsets, indices, values } = pack(rows);
    const index = invertSparse(offsets, indices, values, rows.length);
    expect(Array.from(index.terms)).toEqual([3, 7, 4_000_000_000]);
    expect(unpack(index)).toEqual(reference(rows));
  });

  it('matches the plain definition on a large random index, past every growth of its term table', () => {
    let seed = 12345;
    const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    // 20,000 distinct terms over 600 rows: the table starts at 4,096 slots and must grow several times.
    const rows = Array.from({ length: 600 }, () => {
      const terms = new Set<number>();
      const size = (random() >>> 8) % 120;
      while (terms.size < size) terms.add((((random() >>> 8) % 20_000) * 2_654_435_761) >>> 0);
      return [...terms].map((term): [number, number] => [term, ((random() >>> 8) % 1000) / 100]);
    });
    const { offsets, indices, values } = pack(rows);
    expect(unpack(invertSparse(offsets, indices, values, rows.length))).toEqual(reference(rows));
  });

  it('gives empty postings for no rows', () => {
    const index = invertSparse(new Uint32Array(1), new Uint32Array(0), new Float32Array(0), 0);
    expect([index.terms.length, Array.from(index.offsets), index.slots.length]).toEqual([0, [0], 0]);
  });
});
