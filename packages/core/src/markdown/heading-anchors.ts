import GithubSlugger from 'github-slugger';

/**
 * Heading anchors as Docusaurus 3 builds them: `@docusaurus/utils` wraps
 * github-slugger (1.5 there, 2.0 here: both strip exactly the same code
 * points, checked over the whole Unicode range), one slugger per page shared
 * by every heading of every level, so repeats become `x`, `x-1`, `x-2`.
 */
export interface HeadingSlugger {
  /** Anchor for a heading's plain text; remembers it so a repeat gets a suffix. */
  slug(text: string): string;
}

export function createHeadingSlugger(): HeadingSlugger {
  const slugger = new GithubSlugger();
  return { slug: (text) => slugger.slug(text) };
}

// Docusaurus' "classic" explicit id syntax: a trailing `{#some-id}` (the id may
// not contain a nested `{#` or a `}`).
const CUSTOM_HEADING_ID = /\s*\{#((?:.(?!\{#|\}))*.)\}$/;

/** Splits `Heading text {#custom-id}` into its visible text and the explicit id, if any. */
export function parseCustomHeadingId(heading: string): { text: string; id: string | undefined } {
  const match = CUSTOM_HEADING_ID.exec(heading);
  if (!match || match[1] === undefined) return { text: heading, id: undefined };
  // Removing the first occurrence of the matched text (not the match position) is what Docusaurus does.
  return { text: heading.replace(match[0], ''), id: match[1].trim() };
}

/**
 * The id an MDX or HTML comment at the end of a heading asks for
 * (`## Text {/* #my-id *\/}` or `## Text <!-- #my-id -->`): the first word of
 * the comment when it starts with `#`.
 */
export function headingIdFromComment(comment: string): string | undefined {
  const firstWord = comment.trim().split(' ')[0];
  return firstWord?.startsWith('#') ? firstWord.slice(1) || undefined : undefined;
}
