/**
 * Reads a page the site build wrote and cuts its docs content into sections
 * the way the server's chunker does: the introduction, then one section per
 * H2 and H3, with H4–H6 kept inside as places where a long section may be
 * split. The anchors are the `id`s Docusaurus rendered, so results land exactly
 * where the page's own heading links do.
 *
 * htmlparser2 reads the HTML: a fresh Docusaurus site already has it (through
 * cheerio, which @docusaurus/plugin-content-blog uses), so the plugin adds no
 * package for it, and it copes with what HTML minifiers leave out (closing
 * `</td>`, `</tr>`, `</p>`).
 */
import { Parser } from 'htmlparser2';

export type SectionBlock = { kind: 'text'; text: string } | { kind: 'heading'; text: string; depth: number; anchor: string };

export interface HtmlSection {
  /** The heading's id; "" for the introduction. */
  anchor: string;
  /** H2, or H2 then H3, below the page title (empty for the introduction). */
  headings: string[];
  /** 1 for the introduction, else 2 or 3. */
  depth: number;
  blocks: SectionBlock[];
}

export interface HtmlPage {
  /** The H1 of the content, if it has one. */
  title: string | null;
  sections: HtmlSection[];
}

/** Class of the element that holds a doc's rendered markdown in the classic theme. */
const CONTENT_CLASS = 'theme-doc-markdown';
/** Elements whose text is not part of the docs content a reader searches. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'button', 'nav', 'select', 'textarea', 'iframe', 'object']);
/** Elements after which the text flows on in a new block (so words from two paragraphs never merge). */
const BLOCK_ELEMENTS = new Set([
  'p',
  'div',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'pre',
  'blockquote',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'figure',
  'figcaption',
  'details',
  'summary',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);
/** Blocks that end a run of text (cells and other boxes only keep words apart). */
const FLUSHING_BLOCKS = new Set(['p', 'li', 'tr', 'blockquote', 'table', 'dd', 'dt', 'details', 'summary', 'figure', 'figcaption']);
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const HEADING = /^h([1-6])$/;
/** Zero-width space Docusaurus puts in heading permalinks, and other invisible characters. */
const INVISIBLE = /\u200b|\u200c|\u200d|\ufeff/g;

function hasClass(attributes: Record<string, string>, name: string): boolean {
  return (attributes.class ?? '').split(/\s+/).includes(name);
}

function tidy(text: string): string {
  return text
    .replace(INVISIBLE, '')
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The docs content of one built page, or null when the page has none: no
 * element with the `theme-doc-markdown` class (then the first `<article>`
 * stands for it, for a swizzled DocItem that dropped the class), nor an article.
 */
export function extractPageSections(html: string): HtmlPage | null {
  return extract(html, 'content') ?? extract(html, 'article');
}

/** What an open element means for the text inside it. */
type Frame = 'root' | 'skip' | 'heading' | 'pre' | 'block' | 'inline';

function extract(html: string, rootKind: 'content' | 'article'): HtmlPage | null {
  const page: HtmlPage = { title: null, sections: [] };
  let current: HtmlSection = { anchor: '', headings: [], depth: 1, blocks: [] };
  let h2: string | null = null;
  let found = false;
  let finished = false;
  const stack: Frame[] = [];
  // Counts of open frames of each kind that change how text is read.
  let skipping = 0;
  let inRoot = 0;
  let inPre = 0;
  let heading: { level: number; anchor: string; text: string } | null = null;
  let text = '';

  const flushText = (): void => {
    const cleaned = tidy(text);
    text = '';
    if (cleaned !== '') current.blocks.push({ kind: 'text', text: cleaned });
  };

  const closeHeading = (): void => {
    if (heading === null) return;
    const headingText = tidy(heading.text).replace(/\s+/g, ' ');
    const { level, anchor } = heading;
    heading = null;
    if (level === 1) {
      page.title ??= headingText;
    } else if ((level === 2 || level === 3) && anchor !== '') {
      flushText();
      page.sections.push(current);
      if (level === 2) h2 = headingText;
      current = { anchor, headings: level === 2 || h2 === null ? [headingText] : [h2, headingText], depth: level, blocks: [] };
    } else if (level >= 4 && anchor !== '') {
      current.blocks.push({ kind: 'heading', text: headingText, depth: level, anchor });
    } else if (headingText !== '') {
      current.blocks.push({ kind: 'text', text: headingText });
    }
  };

  const isRoot = (name: string, attributes: Record<string, string>): boolean =>
    rootKind === 'content' ? hasClass(attributes, CONTENT_CLASS) : name === 'article';

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (VOID_ELEMENTS.has(name)) {
          if (inRoot === 0 || skipping > 0) return;
          if (name === 'br') {
            if (heading !== null) heading.text += ' ';
            else text += '\n';
          } else if (name === 'img' && attributes.alt && heading === null) text += ` ${attributes.alt} `;
          else if (name === 'hr') flushText();
          return;
        }
        let frame: Frame;
        if (inRoot === 0) {
          frame = !found && !finished && isRoot(name, attributes) ? 'root' : 'inline';
          if (frame === 'root') found = true;
        } else if (skipping > 0 || SKIPPED.has(name) || hasClass(attributes, 'hash-link') || attributes['aria-hidden'] === 'true') {
          frame = 'skip';
        } else if (HEADING.test(name)) {
          frame = 'heading';
          flushText();
          heading = { level: Number(name.slice(1)), anchor: attributes.id ?? '', text: '' };
        } else if (name === 'pre') {
          frame = 'pre';
          flushText();
        } else {
          frame = BLOCK_ELEMENTS.has(name) ? 'block' : 'inline';
          // Minifiers drop closing tags such as </td>, </tr> and </li>, and the parser then nests what
          // follows instead of closing them: a block's start must also keep words apart.
          if (frame === 'block' && heading === null && inPre === 0) {
            if (FLUSHING_BLOCKS.has(name)) flushText();
            else text += ' ';
          }
        }
        stack.push(frame);
        if (frame === 'root') inRoot += 1;
        else if (frame === 'skip') skipping += 1;
        else if (frame === 'pre') inPre += 1;
      },
      ontext(data) {
        if (inRoot === 0 || skipping > 0) return;
        if (heading !== null) heading.text += data;
        else text += data;
      },
      onclosetag(name) {
        if (VOID_ELEMENTS.has(name)) return;
        const frame = stack.pop();
        if (frame === undefined) return;
        if (frame === 'skip') skipping -= 1;
        else if (frame === 'root') {
          closeHeading();
          flushText();
          inRoot -= 1;
          finished = true;
        } else if (inRoot > 0 && skipping === 0) {
          if (frame === 'heading') closeHeading();
          else if (frame === 'pre') {
            inPre -= 1;
            flushText();
          } else if (frame === 'block' && heading === null) {
            if (FLUSHING_BLOCKS.has(name)) {
              if (inPre === 0) flushText();
            } else if (inPre === 0) text += ' ';
            else if (name === 'div' && !text.endsWith('\n')) text += '\n'; // a line of highlighted code
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (!found) return null;
  page.sections.push(current);
  page.sections = page.sections.filter((section) => section.blocks.some((block) => block.kind === 'text'));
  return page;
}
