/** Types shared by the markdown parser, the chunker and everything that stores chunks. */

/** A Docusaurus doc after parsing, before chunking. */
export interface ParsedDocument {
  /** Path relative to the docs folder, with forward slashes (e.g. `faq/General.md`). */
  file: string;
  /** Doc id as Docusaurus computes it (front matter `id`, else path without extension and number prefixes). */
  docId: string;
  /** Front matter `title`, else the first H1, else the file name. */
  title: string;
  /** Page URL path as Docusaurus routes it (e.g. `/docs/faq/general`), without the site base URL. */
  url: string;
  frontMatter: Record<string, unknown>;
  /** Sections in document order; the first one holds the text before the first H2/H3 (may be empty). */
  sections: DocumentSection[];
  /** True when MDX parsing failed and the tolerant markdown parse was used. */
  usedFallbackParser: boolean;
  /** Where the document came from (`docs`, `git`, `records:<name>`); copied to every chunk. */
  source?: string;
}

export interface DocumentSection {
  /** Heading texts from the page title down to this section's heading (`[title]` for the intro). */
  headingPath: string[];
  /** 1 for the intro under the page title, else the heading level (2..6). */
  depth: number;
  /** Anchor of the heading exactly as Docusaurus computes it; null for the intro. */
  anchor: string | null;
  /** Blocks of plain text in reading order; code blocks are whole and marked so they are never split. */
  blocks: SectionBlock[];
}

/**
 * One block of a section. Text, list and table blocks are plain text; a code
 * block is the whole fence (never split inside); a heading block marks an
 * H4–H6 inside the section, where the chunker may split a long section.
 */
export type SectionBlock =
  | { kind: 'text' | 'table' | 'list'; text: string }
  | { kind: 'code'; text: string; language: string | null; meta: string | null; code: string }
  | { kind: 'heading'; text: string; depth: number; anchor: string };

/** The unit that is embedded, indexed and cited. */
export interface Chunk {
  /** UUIDv5 of file + heading path + part: stable across runs. */
  id: string;
  file: string;
  docId: string;
  title: string;
  /** Last heading of `headingPath`, or null for the page's intro. */
  heading: string | null;
  headingPath: string[];
  depth: number;
  anchor: string | null;
  /** Page URL plus `#anchor` when the chunk sits under a heading. */
  url: string;
  /** Page URL without anchor. */
  pageUrl: string;
  /** 0-based part number when a long section was split. */
  part: number;
  /** Chunk body (without the heading path prefix). */
  text: string;
  /** `Title > Section > Subsection` followed by the body: what is embedded and indexed. */
  indexText: string;
  tokens: number;
  /** SHA-256 (hex) of indexText; the embedding cache key. */
  hash: string;
  /** SHA-256 (hex) of the whole source file; decides added / modified / unchanged. */
  fileHash: string;
  /** Position of the chunk in its document (0-based), for neighbour look-ups. */
  order: number;
  /** Where the chunk's document came from: `docs`, `git` or `records:<name>` (absent in indexes built before sources). */
  source?: string;
  /**
   * Where the page sits in a whole-site ingest (`ingest --site`); absent for a plain docs folder.
   * `version` is the docs version's name as Docusaurus names it (`current`, `2.0`), absent for the blog.
   */
  version?: string;
  /** Locale of the page's URL (`en`, `fr`). */
  locale?: string;
  /** Docs plugin instance id (`default`, `community`) or `blog`. */
  instance?: string;
  /** Set when the page has no translation for `locale`: the text is this (default) locale's. */
  fallbackLocale?: string;
  /** A blog post's date (YYYY-MM-DD). */
  date?: string;
}
