/**
 * Element ids in a built page. Docusaurus minifies its HTML, so attribute
 * values may be unquoted (`id=quick-start`) as well as single or double quoted.
 */
const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)\b([^>]*)>/g;
const ID_ATTRIBUTE = /(?:^|\s)id=(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/;

export interface PageIds {
  /** Every element id on the page. */
  all: Set<string>;
  /** Ids carried by h1-h6 elements: the targets a citation should land on. */
  headings: Set<string>;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function collectPageIds(html: string): PageIds {
  const all = new Set<string>();
  const headings = new Set<string>();
  for (const match of html.matchAll(TAG)) {
    const attributes = match[2] ?? '';
    const id = ID_ATTRIBUTE.exec(attributes);
    if (!id) continue;
    const value = decodeEntities(id[1] ?? id[2] ?? id[3] ?? '');
    all.add(value);
    if (/^h[1-6]$/i.test(match[1] ?? '')) headings.add(value);
  }
  return { all, headings };
}
