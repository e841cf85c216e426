/**
 * Every tuning constant of the in-browser ranking, in one place, with where it
 * comes from. Tuned only on the dev question sets (redux, typescript-eslint,
 * docs-site); never on the frozen zustand set.
 */
export const RANKING = {
  /** BM25 term-frequency saturation: Robertson and Zaragoza's usual 1.2. */
  k1: 1.2,
  /**
   * Field weights and length normalisation (b), in the order title, headings,
   * body. Each field's term frequency saturates on its own before the weighted
   * sum (as lunr and Elasticsearch's `most_fields` do) rather than once over
   * the weighted sum (BM25F): on the dev sets that lifted MRR@5 from 0.49 to
   * 0.63 on redux and from 0.63 to 0.75 on typescript-eslint, because a word
   * found in both a heading and the body then counts more than one repeated in
   * the body. A word in a heading says more about a section than the same word
   * in its body (DocSearch ranks heading matches first); the page title is
   * shared by all sections of a page, so it weighs a little less than the
   * section's own headings. The plateau is flat: title 1–2 and headings
   * 1.5–2.5 all stay within 0.05 MRR@5 on every dev set.
   */
  fields: [
    { weight: 1.5, lengthNormalisation: 0.3 },
    { weight: 2, lengthNormalisation: 0.4 },
    { weight: 1, lengthNormalisation: 0.75 },
  ],
  /** The word being typed, matched as a prefix of longer words: worth less than the word itself. */
  prefixWeight: 0.7,
  /** A word matched within one edit (a typo): worth less again. */
  misspellingWeight: 0.5,
  /** Parts of an identifier (`slice` of `createSlice`) beside the whole identifier. */
  identifierPartWeight: 0.5,
  /** Score × (1 + boost × share²), share = weight of the query words the section holds / all. */
  coverageBoost: 1,
} as const;
