/**
 * The response of `GET /search`, defined once: the server serializes it by this
 * schema and the widget's search box checks what it receives against it.
 */
import { Wire, type Static } from './wire-schema.js';

export const searchResultSchema = Wire.object({
  rank: Wire.integer(),
  score: Wire.number(),
  file: Wire.string(),
  title: Wire.string(),
  heading: Wire.nullable(Wire.string()),
  heading_path: Wire.array(Wire.string()),
  url: Wire.string(),
  /** The start of the section's text, flattened to one line (about 300 characters). */
  excerpt: Wire.string(),
  /** Docs version, locale and untranslated-page note, on an index of a whole site. */
  version: Wire.optional(Wire.string()),
  locale: Wire.optional(Wire.string()),
  fallback_locale: Wire.optional(Wire.string()),
});
export type SearchResult = Static<typeof searchResultSchema>;

export const searchResponseSchema = Wire.object({
  query: Wire.string(),
  results: Wire.array(searchResultSchema),
  out_of_scope: Wire.boolean(),
  confidence: Wire.number(),
  /** With `explain=true`: the words added to the question and the out-of-scope signals (as `docs-chat search --explain`). */
  explanation: Wire.optional(Wire.openObject()),
  /** On an index of a whole site: the version and locale searched, and the asked values the index does not hold. */
  scope: Wire.optional(
    Wire.object({
      version: Wire.string(),
      version_label: Wire.string(),
      locale: Wire.string(),
      reader_version: Wire.optional(Wire.string()),
      ignored: Wire.array(Wire.string()),
    }),
  ),
});
export type SearchResponse = Static<typeof searchResponseSchema>;
