/**
 * Word associations learned from the docs themselves at ingest: for each word,
 * the few words that keep appearing near it (pointwise mutual information over
 * a sliding window, with a minimum count). A question is then expanded with
 * the associates of its words at a low weight, so "dispatch interceptor" also
 * looks for "middleware" and "wrap the store" for "enhancer" when the docs use
 * those words together. Learned per corpus, deterministic, no model weights;
 * kept with the index (`IndexMeta.extra.termAssociations`) and rebuilt by the
 * ingest whenever the docs change.
 */
export const TERM_ASSOCIATIONS_VERSION = 1;

/**
 * Words within this many positions of each other co-occur (6 neighbours on
 * each side): about a clause. Measured on three question sets, 7 gave the
 * best recall@5 overall (redux 0.87 -> 0.90) with the same MRR as 8; 5 and 12
 * were worse.
 */
const WINDOW = 7;
/** A pair must co-occur this often to count: rarer pairs are noise. */
const MIN_PAIR_COUNT = 3;
/** Associates kept per word. */
const PER_WORD = 3;
/** Above this many chunks a deterministic sample is enough and keeps ingest fast on huge sites. */
const MAX_CHUNKS = 6000;

/** Associates of each word, best first, with weights in (0, 1] relative to the best one. */
export type TermAssociations = Map<string, [string, number][]>;

/** Learns associations from the analysed words of every chunk body (in order). */
export function learnTermAssociations(chunkWords: string[][]): TermAssociations {
  const stride = Math.max(1, Math.ceil(chunkWords.length / MAX_CHUNKS));
  const ids = new Map<string, number>();
  const words: string[] = [];
  const counts: number[] = [];
  const idOf = (word: string): number => {
    let id = ids.get(word);
    if (id === undefined) {
      id = words.length;
      ids.set(word, id);
      words.push(word);
      counts.push(0);
    }
    return id;
  };
  // First pass: word ids and counts, so pair keys can be packed into one number.
  const sequences: number[][] = [];
  for (let index = 0; index < chunkWords.length; index += stride) {
    const sequence = (chunkWords[index] as string[]).map(idOf);
    for (const id of sequence) counts[id] = (counts[id] as number) + 1;
    sequences.push(sequence);
  }
  const size = words.length;
  const pairs = new Map<number, number>();
  let total = 0;
  for (const sequence of sequences) {
    total += sequence.length;
    for (let i = 0; i < sequence.length; i += 1) {
      const a = sequence[i] as number;
      if ((counts[a] as number) < MIN_PAIR_COUNT) continue;
      const end = Math.min(sequence.length, i + WINDOW);
      for (let j = i + 1; j < end; j += 1) {
        const b = sequence[j] as number;
        if (a === b || (counts[b] as number) < MIN_PAIR_COUNT) continue;
        const key = a < b ? a * size + b : b * size + a;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
    }
  }
  const candidates = new Map<number, [number, number][]>();
  const keep = (word: number, other: number, score: number): void => {
    let list = candidates.get(word);
    if (!list) candidates.set(word, (list = []));
    list.push([other, score]);
  };
  for (const [key, count] of pairs) {
    if (count < MIN_PAIR_COUNT) continue;
    const a = Math.floor(key / size);
    const b = key - a * size;
    const pmi = Math.log((count * total) / ((counts[a] as number) * (counts[b] as number) * WINDOW));
    if (pmi <= 0) continue;
    // PMI favours rare pairs; the log count favours pairs seen often enough to trust.
    const score = pmi * Math.log(1 + count);
    keep(a, b, score);
    keep(b, a, score);
  }
  const associations: TermAssociations = new Map();
  for (const [word, list] of candidates) {
    list.sort((x, y) => y[1] - x[1] || (words[x[0]] as string).localeCompare(words[y[0]] as string));
    const best = (list[0] as [number, number])[1];
    associations.set(
      words[word] as string,
      list.slice(0, PER_WORD).map(([other, score]) => [words[other] as string, Number((score / best).toFixed(3))]),
    );
  }
  return associations;
}

/**
 * Extra query terms for the words of a question: each word's associates that
 * the question does not already hold, weighted `weight` times their strength
 * (the strongest wins when several words share an associate).
 */
export function expandWords(queryWords: string[], associations: TermAssociations | null, weight: number): Map<string, number> {
  const extra = new Map<string, number>();
  if (!associations) return extra;
  const present = new Set(queryWords);
  for (const word of present) {
    for (const [associate, strength] of associations.get(word) ?? []) {
      if (present.has(associate)) continue;
      extra.set(associate, Math.max(extra.get(associate) ?? 0, Number((weight * strength).toFixed(4))));
    }
  }
  return extra;
}

/** Compact JSON form: `{ word: "associate:strength associate:strength" }`. */
export function serializeTermAssociations(associations: TermAssociations): Record<string, unknown> {
  const table: Record<string, string> = {};
  for (const word of [...associations.keys()].sort()) {
    table[word] = (associations.get(word) ?? []).map(([associate, strength]) => `${associate}:${strength}`).join(' ');
  }
  return { version: TERM_ASSOCIATIONS_VERSION, table };
}

/** Reads associations back from `IndexMeta.extra`; null when absent or from another version. */
export function readTermAssociations(extra: Record<string, unknown> | undefined): TermAssociations | null {
  const stored = extra?.termAssociations as { version?: unknown; table?: unknown } | undefined;
  if (!stored || stored.version !== TERM_ASSOCIATIONS_VERSION || typeof stored.table !== 'object' || stored.table === null) return null;
  const associations: TermAssociations = new Map();
  for (const [word, encoded] of Object.entries(stored.table as Record<string, unknown>)) {
    if (typeof encoded !== 'string' || encoded.length === 0) continue;
    const list: [string, number][] = [];
    for (const entry of encoded.split(' ')) {
      const colon = entry.lastIndexOf(':');
      const strength = Number(entry.slice(colon + 1));
      if (colon > 0 && Number.isFinite(strength)) list.push([entry.slice(0, colon), strength]);
    }
    if (list.length > 0) associations.set(word, list);
  }
  return associations;
}
