/**
 * The in-browser search engine: BM25 over three fields of every section
 * (page title, heading path, body) with field weights, the word being typed
 * matched as a prefix, a misspelt word matched within one edit, and one result
 * per section.
 *
 * Dependency-free (the stemmer aside) and free of DOM types: the browser runs
 * it on the static index, and `pnpm eval --engine static` runs the very same
 * code in Node over the same index.
 */
import type { IndexedSection, SearchIndexFile } from './index-format.js';
import { endsInsideWord, forEachWord, termsOfWord, tokenize } from './text-analysis.js';
import { highlightMatches, snippetOf, type HighlightedText } from './snippet.js';
import { RANKING } from './ranking-profile.js';

/** Longest query analysed: a search box is not for pasting chapters (the rest is ignored). */
export const MAX_QUERY_CHARS = 512;
/** Fewest characters of a word before it is matched as a prefix. */
const MIN_PREFIX_CHARS = 2;
/** Words shorter than this must be spelt right. */
const MIN_FUZZY_CHARS = 5;
/** Most index words one typed prefix or misspelling stands for (the most frequent win). */
const MAX_EXPANSIONS = 24;

export interface StaticSearchHit {
  /** Page URL plus `#anchor` when the section sits under a heading. */
  url: string;
  pageUrl: string;
  title: string;
  /** Heading path below the page title (empty for the page's introduction). */
  headings: string[];
  /** 1 for the page's introduction, else the heading level. */
  depth: number;
  score: number;
  /** Position of the section in the index file. */
  section: number;
  /** The part of the section's text that best shows the matched words. */
  snippet: HighlightedText;
  /** The title and headings with the matched words marked. */
  highlightedTitle: HighlightedText;
  highlightedHeadings: HighlightedText[];
}

export interface StaticSearchOptions {
  /** Most results (sections), default 10. */
  limit?: number;
}

export interface StaticSearchResult {
  hits: StaticSearchHit[];
  /** The index terms that matched, for highlighting elsewhere. */
  matchedTerms: ReadonlySet<string>;
}

export interface StaticSearchEngine {
  search(query: string, options?: StaticSearchOptions): StaticSearchResult;
  readonly pageCount: number;
  readonly sectionCount: number;
}

/** A term's postings: positions `start` to `end` (excluded) of the engine's flat posting arrays. */
interface TermEntry {
  start: number;
  end: number;
}

/** A Uint32Array that doubles when full (the build does not know how many postings it will write). */
class GrowingUint32Array {
  values = new Uint32Array(1 << 14);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const larger = new Uint32Array(this.values.length * 2);
      larger.set(this.values);
      this.values = larger;
    }
    this.values[this.length++] = value;
  }
}

type Field = 0 | 1 | 2;
const TITLE: Field = 0;
const HEADINGS: Field = 1;
const BODY: Field = 2;

interface QueryGroup {
  /** Index terms that stand for one query word, with their weights. */
  candidates: { term: string; entry: TermEntry; weight: number }[];
  /** The query word's own weight (identifier parts count less than the whole). */
  weight: number;
}

function sectionUrl(pageUrl: string, anchor: string): string {
  return anchor === '' ? pageUrl : `${pageUrl}#${anchor}`;
}

/** At most one insertion, deletion, substitution or swap of neighbours between two words. */
function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const lengthDifference = a.length - b.length;
  if (lengthDifference > 1 || lengthDifference < -1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    endA--;
    endB--;
  }
  const restA = endA - start + 1;
  const restB = endB - start + 1;
  if (restA <= 1 && restB <= 1) return true;
  // A swap of two neighbouring letters ("recieve").
  return restA === 2 && restB === 2 && a[start] === b[start + 1] && a[start + 1] === b[start];
}

/** Builds the inverted index of a downloaded index file; the file must have passed parseSearchIndex. */
export function createSearchEngine(file: SearchIndexFile): StaticSearchEngine {
  const sections = file.sections;
  const pages = file.pages;
  const count = sections.length;
  const terms = new Map<string, TermEntry>();
  // Every written form of a word, sorted, for prefix and misspelling look-ups; and the term it stands for.
  const surfaceTerms = new Map<string, string>();
  const lengths = [new Float64Array(count), new Float64Array(count), new Float64Array(count)] as const;

  // Loading must stay well under 300 ms on a large site (eval/src/bench-search.ts): each distinct
  // written word is analysed once per load, counting works on term numbers in a typed array, and
  // the postings go into flat typed arrays (sorted by term at the end) rather than one growing
  // JavaScript array per term.
  const termNames: string[] = [];
  const termNumbers = new Map<string, number>();
  const wordTermNumbers = new Map<string, number[]>();
  const numbersOfWord = (word: string): number[] => {
    let numbers = wordTermNumbers.get(word);
    if (numbers) return numbers;
    numbers = [];
    for (const { term, surface } of termsOfWord(word)) {
      surfaceTerms.set(surface, term);
      let number = termNumbers.get(term);
      if (number === undefined) {
        number = termNames.length;
        termNames.push(term);
        termNumbers.set(term, number);
      }
      numbers.push(number);
    }
    wordTermNumbers.set(word, numbers);
    return numbers;
  };
  // Occurrences of each term in the section being counted: title, headings and body side by side.
  let counts = new Uint32Array(3 * 8192);
  let touched: number[] = [];
  const countWords = (text: string, field: Field, section: number): void => {
    let length = 0;
    forEachWord(text, (word) => {
      for (const number of numbersOfWord(word)) {
        if (3 * number + 2 >= counts.length) {
          const larger = new Uint32Array(counts.length * 2);
          larger.set(counts);
          counts = larger;
        }
        const at = 3 * number;
        if (counts[at] === 0 && counts[at + 1] === 0 && counts[at + 2] === 0) touched.push(number);
        counts[at + field] = (counts[at + field] as number) + 1;
        length += 1;
      }
    });
    lengths[field][section] = (lengths[field][section] as number) + length;
  };

  // One posting per (section, term), in section order: the term, the section, and three counts.
  const pairTerms = new GrowingUint32Array();
  const pairSections = new GrowingUint32Array();
  const pairCounts = new GrowingUint32Array();
  for (let section = 0; section < count; section++) {
    const [page, , headings, , text] = sections[section] as IndexedSection;
    countWords(pages[page]?.[1] ?? '', TITLE, section);
    for (const heading of headings) countWords(heading, HEADINGS, section);
    countWords(text, BODY, section);
    for (const number of touched) {
      const at = 3 * number;
      pairTerms.push(number);
      pairSections.push(section);
      pairCounts.push(counts[at] as number);
      pairCounts.push(counts[at + 1] as number);
      pairCounts.push(counts[at + 2] as number);
      counts[at] = 0;
      counts[at + 1] = 0;
      counts[at + 2] = 0;
    }
    touched = [];
  }

  // Group the postings by term (a counting sort keeps each term's sections in ascending order).
  const termCount = termNames.length;
  const postingCount = pairTerms.length;
  const starts = new Uint32Array(termCount + 1);
  for (let index = 0; index < postingCount; index++)
    starts[(pairTerms.values[index] as number) + 1] = (starts[(pairTerms.values[index] as number) + 1] as number) + 1;
  for (let number = 0; number < termCount; number++) starts[number + 1] = (starts[number + 1] as number) + (starts[number] as number);
  const postingSections = new Uint32Array(postingCount);
  const postingCounts = new Uint32Array(postingCount * 3);
  const next = starts.slice(0, termCount);
  for (let index = 0; index < postingCount; index++) {
    const number = pairTerms.values[index] as number;
    const position = next[number] as number;
    next[number] = position + 1;
    postingSections[position] = pairSections.values[index] as number;
    postingCounts[3 * position] = pairCounts.values[3 * index] as number;
    postingCounts[3 * position + 1] = pairCounts.values[3 * index + 1] as number;
    postingCounts[3 * position + 2] = pairCounts.values[3 * index + 2] as number;
  }
  for (let number = 0; number < termCount; number++) {
    terms.set(termNames[number] as string, { start: starts[number] as number, end: starts[number + 1] as number });
  }

  const averages = lengths.map((fieldLengths) => {
    let total = 0;
    for (const length of fieldLengths) total += length;
    return count === 0 ? 1 : Math.max(total / count, 1);
  });
  const sortedSurfaces = [...surfaceTerms.keys()].sort();

  /** BM25's IDF of a word found in `df` sections. */
  function idfOfFrequency(df: number): number {
    return Math.log(1 + (count - df + 0.5) / (df + 0.5));
  }

  function inverseDocumentFrequency(entry: TermEntry): number {
    return idfOfFrequency(entry.end - entry.start);
  }

  /** The IDF of a word found in one section, the rarest there can be. */
  const maxInverseDocumentFrequency = idfOfFrequency(1);

  /** Index words that start with `prefix`, most frequent first. */
  function prefixTerms(prefix: string): string[] {
    let low = 0;
    let high = sortedSurfaces.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sortedSurfaces[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    const found = new Set<string>();
    for (let index = low; index < sortedSurfaces.length; index++) {
      const surface = sortedSurfaces[index] as string;
      if (!surface.startsWith(prefix)) break;
      found.add(surfaceTerms.get(surface) as string);
    }
    return mostFrequent(found);
  }

  function nearTerms(surface: string): string[] {
    const found = new Set<string>();
    for (const candidate of sortedSurfaces) {
      if (candidate.length >= surface.length - 1 && candidate.length <= surface.length + 1 && withinOneEdit(candidate, surface)) {
        found.add(surfaceTerms.get(candidate) as string);
      }
    }
    return mostFrequent(found);
  }

  function documentFrequency(term: string): number {
    const entry = terms.get(term);
    return entry ? entry.end - entry.start : 0;
  }

  function mostFrequent(found: Set<string>): string[] {
    return [...found].sort((a, b) => documentFrequency(b) - documentFrequency(a)).slice(0, MAX_EXPANSIONS);
  }

  function queryGroups(query: string): QueryGroup[] {
    const typing = endsInsideWord(query);
    const tokens = tokenize(query);
    const lastWordStart = tokens.at(-1)?.start;
    const groups: QueryGroup[] = [];
    const seen = new Set<string>();
    for (const token of tokens) {
      if (seen.has(token.term)) continue;
      seen.add(token.term);
      const candidates: QueryGroup['candidates'] = [];
      const exact = terms.get(token.term);
      if (exact) candidates.push({ term: token.term, entry: exact, weight: 1 });
      const beingTyped = typing && token.start === lastWordStart;
      if (beingTyped && token.surface.length >= MIN_PREFIX_CHARS) {
        for (const term of prefixTerms(token.surface)) {
          const entry = terms.get(term);
          if (entry && term !== token.term) candidates.push({ term, entry, weight: RANKING.prefixWeight });
        }
      }
      if (candidates.length === 0 && token.surface.length >= MIN_FUZZY_CHARS) {
        for (const term of nearTerms(token.surface)) {
          const entry = terms.get(term);
          if (entry) candidates.push({ term, entry, weight: RANKING.misspellingWeight });
        }
      }
      // Parts of an identifier (`create`, `slice` of `createSlice`) add evidence without outweighing the whole.
      const isPart = tokens.some((other) => other !== token && other.start === token.start && other.surface.length > token.surface.length);
      groups.push({ candidates, weight: isPart ? RANKING.identifierPartWeight : 1 });
    }
    return groups;
  }

  /**
   * How much one query word says, for the coverage boost: its IDF (the best of the index words it
   * stands for, at their weights), times the word's own weight. A word the index lacks counts as the
   * rarest word, so a section is never rewarded for holding the question's common words only.
   */
  function informativeness(group: QueryGroup): number {
    if (group.candidates.length === 0) return group.weight * maxInverseDocumentFrequency;
    let idf = 0;
    for (const { entry, weight } of group.candidates) idf = Math.max(idf, weight * inverseDocumentFrequency(entry));
    return group.weight * idf;
  }

  /** BM25 of one term in one section: each field saturates on its own, then the fields add up with their weights. */
  function termScore(entry: TermEntry, position: number, section: number): number {
    let total = 0;
    for (let field = 0; field < 3; field++) {
      const frequency = postingCounts[position * 3 + field] as number;
      if (frequency === 0) continue;
      const { weight, lengthNormalisation } = RANKING.fields[field as Field];
      const relativeLength = (lengths[field as Field][section] as number) / (averages[field] as number);
      const normalised = frequency / (1 - lengthNormalisation + lengthNormalisation * relativeLength);
      total += (weight * (RANKING.k1 + 1) * normalised) / (RANKING.k1 + normalised);
    }
    return total;
  }

  function search(rawQuery: string, options: StaticSearchOptions = {}): StaticSearchResult {
    const limit = options.limit ?? 10;
    const query = rawQuery.slice(0, MAX_QUERY_CHARS);
    const groups = queryGroups(query).map((group) => ({ ...group, informativeness: informativeness(group) }));
    const totalWeight = groups.reduce((sum, group) => sum + group.informativeness, 0);
    const scores = new Float64Array(count);
    const matchedWeight = new Float64Array(count);
    const best = new Float64Array(count);
    const matchedTerms = new Set<string>();
    for (const group of groups) {
      const touched: number[] = [];
      for (const { term, entry, weight } of group.candidates) {
        const idf = inverseDocumentFrequency(entry);
        let contributed = false;
        for (let position = entry.start; position < entry.end; position++) {
          const section = postingSections[position] as number;
          const score = weight * idf * termScore(entry, position, section);
          if (best[section] === 0) touched.push(section);
          if (score > (best[section] as number)) best[section] = score;
          contributed = true;
        }
        if (contributed) matchedTerms.add(term);
      }
      for (const section of touched) {
        scores[section] = (scores[section] as number) + group.weight * (best[section] as number);
        matchedWeight[section] = (matchedWeight[section] as number) + group.informativeness;
        best[section] = 0;
      }
    }

    const ranked: number[] = [];
    for (let section = 0; section < count; section++) {
      if ((scores[section] as number) <= 0) continue;
      // Sections that hold more of the question's informative words rank above those that repeat one of them.
      const coverage = totalWeight === 0 ? 0 : (matchedWeight[section] as number) / totalWeight;
      scores[section] = (scores[section] as number) * (1 + RANKING.coverageBoost * coverage * coverage);
      ranked.push(section);
    }
    ranked.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);

    const hits: StaticSearchHit[] = [];
    const seenUrls = new Set<string>();
    for (const section of ranked) {
      if (hits.length >= limit) break;
      const [page, anchor, headings, depth, text] = sections[section] as IndexedSection;
      const [pageUrl, title] = pages[page] as [string, string];
      const url = sectionUrl(pageUrl, anchor);
      // A long section split in parts is one result: its best part stands for it.
      if (seenUrls.has(url)) continue;
      seenUrls.add(url);
      hits.push({
        url,
        pageUrl,
        title,
        headings,
        depth,
        score: scores[section] as number,
        section,
        snippet: snippetOf(text, matchedTerms),
        highlightedTitle: highlightMatches(title, matchedTerms),
        highlightedHeadings: headings.map((heading) => highlightMatches(heading, matchedTerms)),
      });
    }
    return { hits, matchedTerms };
  }

  return { search, pageCount: pages.length, sectionCount: count };
}
