import { toString as mdastToString } from 'mdast-util-to-string';
// remark-directive 3, as Docusaurus 3 uses: version 4 also reads a colon before a digit as a directive (`05:00`),
// which Docusaurus keeps as text, so headings holding a time got anchors the built page does not have.
import remarkDirective from 'remark-directive';
import remarkFrontmatter from 'remark-frontmatter';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';
import { parse as parseYaml } from 'yaml';
import type { DocumentSection, ParsedDocument, SectionBlock } from './document.js';
import { renderFence } from './code-fence.js';
import { computeBlogRoute, computeDocRoute } from './docusaurus-routes.js';
import { createHeadingSlugger, headingIdFromComment, parseCustomHeadingId, type HeadingSlugger } from './heading-anchors.js';
import { ADMONITION_KEYWORDS, codePlaceholder, preprocessSource, type PreprocessMode } from './preprocess-source.js';

export interface ParseDocumentInput {
  /** Path relative to the docs folder, forward slashes. */
  file: string;
  text: string;
  /** The docs plugin's `routeBasePath` (default `docs`). */
  routeBasePath?: string;
  /** Page URL known from a site build; wins over the computed one. */
  permalink?: string;
  /** `blog` routes the file as a blog post (dated slug) instead of a doc. */
  kind?: 'docs' | 'blog';
}

/**
 * Minimal structural view of mdast nodes, including the MDX, directive and
 * GFM extensions: the walker only reads a few fields, and one loose shape
 * keeps it independent of which extension typings happen to be loaded.
 */
interface MdNode {
  type: string;
  children?: MdNode[];
  value?: string;
  depth?: number;
  lang?: string | null;
  meta?: string | null;
  ordered?: boolean | null;
  start?: number | null;
  checked?: boolean | null;
  name?: string | null;
  alt?: string | null;
  attributes?: unknown;
  data?: { estree?: unknown; directiveLabel?: boolean };
}

interface JsxAttribute {
  type: string;
  name?: string;
  value?: string | { type: string; value: string; data?: { estree?: unknown } } | null;
}

type WalkEvent = { type: 'heading'; depth: number; text: string; anchor: string } | { type: 'block'; block: SectionBlock };

/**
 * Of GFM only tables change what a reader sees: autolinks, strikethrough and
 * task items read the same as plain text, and the autolink scanner alone costs
 * about a third of the parse time on a large docs folder.
 */
function gfmTablesOnly(this: Processor): void {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(gfmTable());
  (data.fromMarkdownExtensions ??= []).push(gfmTableFromMarkdown());
}

const markdownProcessor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkDirective).use(gfmTablesOnly);
const mdxProcessor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkDirective).use(gfmTablesOnly).use(remarkMdx);

/**
 * Parses with fenced code swapped for placeholders, then puts the code back.
 * If any placeholder did not come back as a whole code block (a fence our
 * line scanner read differently from micromark), parses the original instead.
 */
function parseTree(text: string, mode: PreprocessMode): MdNode {
  const processor = mode === 'mdx' ? mdxProcessor : markdownProcessor;
  const { text: prepared, extractedCode } = preprocessSource(text, mode, { extractCode: true });
  const root = processor.parse(prepared) as unknown as MdNode;
  if (extractedCode.length === 0 || restoreCode(root, extractedCode)) return root;
  return processor.parse(preprocessSource(text, mode).text) as unknown as MdNode;
}

function restoreCode(root: MdNode, extractedCode: string[]): boolean {
  const placeholders = new Map(extractedCode.map((code, index) => [codePlaceholder(index), code]));
  let restored = 0;
  let stray = false;
  const visit = (node: MdNode): void => {
    if (node.type === 'code' && node.value !== undefined && placeholders.has(node.value)) {
      node.value = placeholders.get(node.value);
      restored++;
    } else if (typeof node.value === 'string' && node.value.includes('\uE000')) stray = true;
    node.children?.forEach(visit);
  };
  visit(root);
  return !stray && restored === extractedCode.length;
}

/** Parses one Docusaurus markdown/MDX page into its title, URL and heading-delimited sections. */
export function parseDocument(input: ParseDocumentInput): ParsedDocument {
  let root: MdNode;
  let usedFallbackParser = false;
  try {
    root = parseTree(input.text, 'mdx');
  } catch {
    // Docusaurus would fail the build on this file; we still index what a reader can make of it.
    usedFallbackParser = true;
    root = parseTree(input.text, 'markdown');
  }

  const frontMatter = readFrontMatter(root);
  const walker = new DocumentWalker(usedFallbackParser ? 'markdown' : 'mdx');
  walker.walkChildren(root.children ?? []);
  const events = walker.events;

  // Docusaurus takes the content title from the first heading when it is an H1
  // above any thematic break; other H1s are ordinary sections.
  const contentTitleIndex = walker.contentTitleEventIndex;
  const contentTitle = contentTitleIndex === undefined ? undefined : (events[contentTitleIndex] as { text: string }).text;

  const route =
    input.kind === 'blog'
      ? computeBlogRoute({ file: input.file, frontMatter, routeBasePath: input.routeBasePath ?? 'blog' })
      : computeDocRoute({ file: input.file, frontMatter, routeBasePath: input.routeBasePath });
  const frontMatterTitle = typeof frontMatter.title === 'string' && frontMatter.title.trim() !== '' ? frontMatter.title.trim() : undefined;
  const title = frontMatterTitle ?? contentTitle ?? route.baseId;

  return {
    file: input.file,
    docId: route.docId,
    title,
    url: input.permalink ?? route.url,
    frontMatter,
    sections: buildSections(events, title, contentTitleIndex),
    usedFallbackParser,
  };
}

function readFrontMatter(root: MdNode): Record<string, unknown> {
  const yamlNode = root.children?.[0];
  if (yamlNode?.type !== 'yaml' || typeof yamlNode.value !== 'string') return {};
  try {
    const value: unknown = parseYaml(yamlNode.value);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Docusaurus refuses such a page; for retrieval its body is still worth indexing.
    return {};
  }
}

/** Groups the flat walk into sections at H2/H3 (and later H1s); H4–H6 stay inside as heading blocks. */
function buildSections(events: WalkEvent[], title: string, contentTitleIndex: number | undefined): DocumentSection[] {
  const intro: DocumentSection = { headingPath: [title], depth: 1, anchor: null, blocks: [] };
  const sections: DocumentSection[] = [intro];
  let current = intro;
  let h2Text: string | undefined;
  events.forEach((event, index) => {
    if (index === contentTitleIndex) return;
    if (event.type === 'block') {
      current.blocks.push(event.block);
      return;
    }
    if (event.depth >= 4) {
      current.blocks.push({ kind: 'heading', text: event.text, depth: event.depth, anchor: event.anchor });
      return;
    }
    let headingPath: string[];
    if (event.depth === 3) headingPath = h2Text === undefined ? [title, event.text] : [title, h2Text, event.text];
    else {
      h2Text = event.text;
      headingPath = [title, event.text];
    }
    current = { headingPath, depth: event.depth, anchor: event.anchor, blocks: [] };
    sections.push(current);
  });
  return sections;
}

const VISIBLE_PROP_NAMES = new Set([
  'title',
  'label',
  'name',
  'description',
  'explanation',
  'summary',
  'caption',
  'alt',
  'heading',
  'subtitle',
  'text',
  'tooltip',
  'question',
  'answer',
]);

class DocumentWalker {
  readonly events: WalkEvent[] = [];
  contentTitleEventIndex: number | undefined;
  private readonly slugger: HeadingSlugger = createHeadingSlugger();
  private seenFirstHeading = false;
  private seenThematicBreak = false;

  constructor(private readonly mode: PreprocessMode) {}

  walkChildren(nodes: MdNode[]): void {
    for (const node of nodes) this.walk(node);
  }

  private pushBlock(block: SectionBlock): void {
    if (block.kind !== 'code' && block.text.trim() === '') return;
    this.events.push({ type: 'block', block });
  }

  private pushText(text: string, kind: 'text' | 'list' | 'table' = 'text'): void {
    const cleaned = tidyText(text);
    if (cleaned !== '') this.pushBlock({ kind, text: cleaned });
  }

  private walk(node: MdNode): void {
    switch (node.type) {
      case 'yaml':
      case 'mdxjsEsm':
      case 'definition':
        return;
      case 'thematicBreak':
        this.seenThematicBreak = true;
        return;
      case 'heading':
        this.walkHeading(node);
        return;
      case 'paragraph':
        this.pushText(this.inline(node.children ?? []));
        return;
      case 'code':
        this.pushCode(node);
        return;
      case 'list':
        this.walkList(node, 0);
        return;
      case 'table':
        this.pushText(this.tableRows(node).join('\n'), 'table');
        return;
      case 'blockquote':
      case 'footnoteDefinition':
        this.walkChildren(node.children ?? []);
        return;
      case 'html':
        this.pushText(htmlToText(node.value ?? ''));
        return;
      case 'mdxFlowExpression':
        this.pushText(expressionText(node.data?.estree));
        return;
      case 'containerDirective':
        this.walkContainerDirective(node);
        return;
      case 'leafDirective':
        this.pushText(`::${node.name ?? ''} ${this.inline(node.children ?? [])}`);
        return;
      case 'mdxJsxFlowElement':
        this.walkJsxElement(node);
        return;
      default:
        if (node.children) this.walkChildren(node.children);
        else if (typeof node.value === 'string') this.pushText(node.value);
    }
  }

  private walkHeading(node: MdNode): void {
    const children = [...(node.children ?? [])];
    // Explicit id from a trailing MDX comment (`{/* #id */}`), as Docusaurus reads it.
    let explicitId: string | undefined;
    const last = children.at(-1);
    if (last?.type === 'mdxTextExpression') {
      const comment = singleCommentOf(last.data?.estree);
      const id = comment === undefined ? undefined : headingIdFromComment(comment);
      if (id) {
        explicitId = id;
        children.pop();
      }
    }
    // Docusaurus ignores raw HTML nodes when reading a heading's text for its anchor.
    const anchorSource = children.filter((child) => child.type !== 'html');
    const rawText = mdastToString(anchorSource.length > 0 ? anchorSource : children);
    const classic = parseCustomHeadingId(rawText);
    explicitId ??= classic.id;
    const anchor = explicitId ?? this.slugger.slug(rawText);
    const displayText = tidyInline(parseCustomHeadingId(this.inline(children, { plain: true })).text);
    const depth = node.depth ?? 2;
    if (!this.seenFirstHeading) {
      this.seenFirstHeading = true;
      if (depth === 1 && !this.seenThematicBreak) this.contentTitleEventIndex = this.events.length;
    }
    this.events.push({ type: 'heading', depth, text: displayText, anchor });
  }

  private pushCode(node: MdNode): void {
    const code = node.value ?? '';
    const language = node.lang ?? null;
    const meta = node.meta ?? null;
    this.pushBlock({ kind: 'code', text: renderFence(code, language, meta), language, meta, code });
  }

  private walkList(node: MdNode, level: number): void {
    let number = node.start ?? 1;
    for (const item of node.children ?? []) {
      const marker = node.ordered ? `${number++}.` : '-';
      const indent = '  '.repeat(level);
      const check = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
      const lines: string[] = [];
      const flushLines = (): void => {
        if (lines.length > 0) this.pushText(lines.join('\n'), 'list');
        lines.length = 0;
      };
      let first = true;
      for (const child of item.children ?? []) {
        if (child.type === 'paragraph') {
          const text = tidyText(this.inline(child.children ?? []));
          lines.push(first ? `${indent}${marker} ${check}${text}` : `${indent}  ${text}`);
          first = false;
        } else if (child.type === 'list') {
          flushLines();
          this.walkList(child, level + 1);
        } else {
          // Code, headings, JSX or admonitions inside an item keep their own blocks
          // so that code is never cut and headings still open sections.
          if (first) {
            lines.push(`${indent}${marker}`);
            first = false;
          }
          flushLines();
          this.walk(child);
        }
      }
      flushLines();
    }
  }

  private tableRows(node: MdNode): string[] {
    return (node.children ?? []).map((row) => (row.children ?? []).map((cell) => tidyInline(this.inline(cell.children ?? []))).join(' | '));
  }

  private walkContainerDirective(node: MdNode): void {
    const children = node.children ?? [];
    const labelNode = children[0]?.data?.directiveLabel === true ? children[0] : undefined;
    const content = labelNode ? children.slice(1) : children;
    const name = node.name ?? '';
    const attributes = (node.attributes ?? {}) as Record<string, unknown>;
    const title =
      typeof attributes.title === 'string' ? attributes.title : labelNode ? tidyInline(this.inline(labelNode.children ?? [])) : '';
    if ((ADMONITION_KEYWORDS as readonly string[]).includes(name)) {
      const kind = name.charAt(0).toUpperCase() + name.slice(1);
      this.withPrefix(title ? `${kind}: ${title} — ` : `${kind}: `, () => this.walkChildren(content));
      return;
    }
    this.withPrefix(title ? `${title} — ` : '', () => this.walkChildren(content));
  }

  /**
   * Runs `walk` and glues `prefix` (an admonition or tab label) to the first
   * prose block it produced, so the label travels with its text; when the
   * first thing is code or a heading, the label becomes a block of its own.
   */
  private withPrefix(prefix: string, walk: () => void): void {
    const start = this.events.length;
    walk();
    if (prefix.trim() === '') return;
    const first = this.events[start];
    if (first?.type === 'block' && first.block.kind === 'text') {
      first.block = { ...first.block, text: prefix + first.block.text };
      return;
    }
    if (first?.type === 'block' && (first.block.kind === 'list' || first.block.kind === 'table')) {
      // A list or table keeps its first line intact; the label goes on the line above it.
      first.block = { ...first.block, text: `${labelOf(prefix)}\n${first.block.text}` };
      return;
    }
    this.events.splice(start, 0, { type: 'block', block: { kind: 'text', text: labelOf(prefix) } });
  }

  private walkJsxElement(node: MdNode): void {
    const name = node.name ?? '';
    const attributes = (node.attributes ?? []) as JsxAttribute[];
    const children = node.children ?? [];
    if (name === 'TabItem') {
      const label = attributeString(attributes, 'label') ?? attributeString(attributes, 'value');
      this.withPrefix(label ? `${label}: ` : '', () => this.walkChildren(children));
      return;
    }
    if (name === 'details') {
      const summary = children.find((child) => child.name === 'summary');
      const summaryText = summary ? tidyInline(this.inline(summary.children ?? [])) : '';
      const rest = children.filter((child) => child !== summary);
      this.withPrefix(summaryText ? `${summaryText} — ` : '', () => this.walkChildren(rest));
      return;
    }
    if (name === 'table' || name === 'thead' || name === 'tbody') {
      const rows = this.jsxTableRows(node);
      if (rows.length > 0) {
        this.pushText(rows.join('\n'), 'table');
        return;
      }
    }
    const propText = visiblePropText(attributes);
    if (name === 'DetailedExplanation' || propText === '') {
      // Components whose title introduces their body read best with the title glued to it.
      this.withPrefix(propText ? `${propText} — ` : '', () => this.walkChildren(children));
      return;
    }
    this.pushText(propText);
    this.walkChildren(children);
  }

  private jsxTableRows(node: MdNode): string[] {
    const rows: string[] = [];
    // MDX puts a cell written on one line (`<td>text</td>`) inside a paragraph, so cells are searched, not listed.
    const collectCells = (current: MdNode, cells: MdNode[]): void => {
      for (const child of current.children ?? []) {
        if (child.name === 'td' || child.name === 'th') cells.push(child);
        else if (child.name !== 'tr') collectCells(child, cells);
      }
    };
    const visit = (current: MdNode): void => {
      if (current.name === 'tr') {
        const cells: MdNode[] = [];
        collectCells(current, cells);
        const row = cells.map((cell) =>
          tidyInline(cell.type === 'mdxJsxTextElement' ? this.inline(cell.children ?? []) : this.blockText(cell.children ?? [])),
        );
        if (row.some((cell) => cell !== '')) rows.push(row.join(' | '));
        return;
      }
      for (const child of current.children ?? []) visit(child);
    };
    visit(node);
    return rows;
  }

  /** Flattens block content (as in an HTML table cell) into one line of text. */
  private blockText(nodes: MdNode[]): string {
    return nodes
      .map((node) =>
        node.type === 'paragraph' || node.type === 'mdxJsxTextElement' || node.type === 'text' || node.type === 'inlineCode'
          ? this.inline([node])
          : this.inline(node.children ?? []),
      )
      .join(' ');
  }

  /** Renders phrasing content as readable text; `plain` drops backticks for heading paths. */
  inline(nodes: MdNode[], options: { plain?: boolean } = {}): string {
    let text = '';
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          text += node.value ?? '';
          break;
        case 'inlineCode':
          text += options.plain ? (node.value ?? '') : `\`${node.value ?? ''}\``;
          break;
        case 'break':
          text += '\n';
          break;
        case 'image':
        case 'imageReference':
          text += node.alt ?? '';
          break;
        case 'html':
          text += htmlToText(node.value ?? '');
          break;
        case 'mdxTextExpression':
          text += expressionText(node.data?.estree);
          break;
        case 'mdxJsxTextElement': {
          if (node.name === 'br') {
            text += '\n';
            break;
          }
          const inner = this.inline(node.children ?? [], options);
          text += inner !== '' ? inner : visiblePropText((node.attributes ?? []) as JsxAttribute[]);
          break;
        }
        case 'textDirective':
          // Docusaurus turns a directive nobody handles (`10:30`, `key:value`) back into its text.
          text += `:${node.name ?? ''}${node.children && node.children.length > 0 ? this.inline(node.children, options) : ''}`;
          break;
        case 'footnoteReference':
          break;
        default:
          if (node.children) text += this.inline(node.children, options);
          else if (typeof node.value === 'string') text += node.value;
      }
    }
    return text;
  }
}

/** `Tip: Summary — ` → `Tip: Summary`; `npm: ` → `npm`. */
function labelOf(prefix: string): string {
  return prefix.replace(/\s*—\s*$/, '').replace(/:\s*$/, '');
}

/** Collapses runs of spaces while keeping intended line breaks. */
function tidyText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function tidyInline(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Raw HTML (tolerant parse, or HTML kept by markdown) reduced to its visible text. */
function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(?:p|div|tr|li|h[1-6]|summary|table|blockquote)>/gi, '\n')
      .replace(/<\/t[dh]>/gi, ' | ')
      .replace(/<[^>]*>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/(?:\s*\|\s*)+$/, '').trim())
    .join('\n');
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X')) return String.fromCodePoint(Number.parseInt(body.slice(2), 16) || 0x20);
    if (body.startsWith('#')) return String.fromCodePoint(Number.parseInt(body.slice(1), 10) || 0x20);
    return named[body.toLowerCase()] ?? entity;
  });
}

function attributeString(attributes: JsxAttribute[], name: string): string | undefined {
  const attribute = attributes.find((candidate) => candidate.type === 'mdxJsxAttribute' && candidate.name === name);
  if (!attribute) return undefined;
  if (typeof attribute.value === 'string') return attribute.value;
  if (attribute.value && typeof attribute.value === 'object') {
    const text = stringsOf(attribute.value.data?.estree, true).join(' ');
    return text === '' ? undefined : text;
  }
  return undefined;
}

/**
 * Visible text carried by props: string props with a text-like name
 * (`title`, `label`, `description`...), and inside expression props
 * (`bios={[{ name: '...' }]}`) the strings stored under such names.
 */
function visiblePropText(attributes: JsxAttribute[]): string {
  const parts: string[] = [];
  for (const attribute of attributes) {
    if (attribute.type !== 'mdxJsxAttribute' || !attribute.name) continue;
    const visible = VISIBLE_PROP_NAMES.has(attribute.name);
    if (typeof attribute.value === 'string') {
      if (visible) parts.push(attribute.value);
    } else if (attribute.value && typeof attribute.value === 'object') {
      parts.push(...stringsOf(attribute.value.data?.estree, visible));
    }
  }
  return tidyInline(joinAsSentences(parts));
}

/** Joins separate strings as sentences, adding a full stop only where one is missing. */
function joinAsSentences(parts: string[]): string {
  return parts.reduce((text, part) => (text === '' ? part : /[.!?…:;]$/.test(text) ? `${text} ${part}` : `${text}. ${part}`), '');
}

/** Text an inline `{...}` expression shows when it is a plain string or template literal. */
function expressionText(estree: unknown): string {
  const program = estree as { body?: Array<{ type: string; expression?: unknown }> } | undefined;
  const statement = program?.body?.[0];
  if (!statement || statement.type !== 'ExpressionStatement') return '';
  const expression = statement.expression as { type?: string } | undefined;
  if (expression?.type === 'Literal' || expression?.type === 'TemplateLiteral') return stringsOf(estree, true).join(' ');
  return '';
}

function isNamingProperty(property: unknown): boolean {
  const key = (property as { key?: { name?: unknown; value?: unknown } } | null)?.key;
  const name = key?.name ?? key?.value;
  return name === 'name' || name === 'title' || name === 'label';
}

/** Contents of a `{/* ... *\/}` expression that holds one comment and nothing else. */
function singleCommentOf(estree: unknown): string | undefined {
  const program = estree as { body?: unknown[]; comments?: Array<{ value: string }> } | undefined;
  if (!program || (program.body?.length ?? 0) !== 0 || program.comments?.length !== 1) return undefined;
  return program.comments[0]?.value;
}

/**
 * Collects string and template-literal text from an ESTree. With `visible`
 * every string counts; otherwise only strings stored under a text-like
 * property name do, so ids, URLs and usernames stay out.
 */
function stringsOf(tree: unknown, visible: boolean): string[] {
  const found: string[] = [];
  const visit = (node: unknown, counts: boolean, depth: number): void => {
    if (depth > 200 || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, counts, depth + 1);
      return;
    }
    const current = node as Record<string, unknown> & { type?: unknown };
    if (current.type === 'Literal') {
      if (counts && typeof current.value === 'string' && current.value.trim() !== '') found.push(current.value.trim());
      return;
    }
    if (current.type === 'TemplateLiteral') {
      if (counts) {
        const quasis = (current.quasis as Array<{ value?: { cooked?: string | null; raw?: string } }> | undefined) ?? [];
        const text = quasis
          .map((quasi) => quasi.value?.cooked ?? quasi.value?.raw ?? '')
          .join(' ')
          .trim();
        if (text !== '') found.push(text);
      }
      return;
    }
    if (current.type === 'ObjectExpression' && Array.isArray(current.properties)) {
      // Read `{ description, name }` as "name. description": who or what comes before what it says.
      const properties = [...(current.properties as unknown[])].sort((a, b) => Number(isNamingProperty(b)) - Number(isNamingProperty(a)));
      for (const property of properties) visit(property, counts, depth + 1);
      return;
    }
    if (current.type === 'Property') {
      const key = current.key as { type?: string; name?: string; value?: unknown } | undefined;
      const keyName = key?.type === 'Identifier' ? key.name : typeof key?.value === 'string' ? key.value : undefined;
      visit(current.value, visible || (keyName !== undefined && VISIBLE_PROP_NAMES.has(keyName)), depth + 1);
      return;
    }
    for (const [field, value] of Object.entries(current)) {
      if (field === 'loc' || field === 'range' || field === 'start' || field === 'end' || field === 'comments') continue;
      if (typeof value === 'object' && value !== null) visit(value, counts, depth + 1);
    }
  };
  visit(tree, visible, 0);
  return found;
}
