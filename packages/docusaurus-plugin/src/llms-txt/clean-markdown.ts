/**
 * A doc's source (.md or .mdx) as plain markdown for language models: front
 * matter, imports and exports, JSX expressions and comments removed, JSX
 * components replaced by their content (a `label` or `title` they show kept
 * as a bold line), admonitions turned into a bold label, heading ids dropped.
 * The same reading as the ingest's (core's markdown parser: MDX first, plain
 * markdown when MDX fails), written with remark, which Docusaurus itself
 * installs, so the plugin adds no weight to a site; core's parser is not
 * loaded here because it ships as TypeScript source, which Node cannot load
 * when Docusaurus runs the plugin.
 */
import type { Nodes, Parent, Root, RootContent } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
// js-yaml, not yaml: Docusaurus already installs it, so reading front matter adds no package to a site.
import { load as parseYaml } from 'js-yaml';

export interface CleanMarkdown {
  /** The body, without front matter; ends with one newline (empty for an empty page). */
  markdown: string;
  frontMatter: Record<string, unknown>;
  /** True when the first block is a level-1 heading (the page's title is already there). */
  startsWithTitle: boolean;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING_ID = /^(\s{0,3}#{1,6}\s.*?)\s*\{#[^}\s]+\}\s*$/;
const ADMONITION_OPEN = /^\s{0,3}:::\s*([A-Za-z][\w-]*)(?:\[([^\]]*)\])?\s*(.*)$/;
const ADMONITION_CLOSE = /^\s{0,3}:::\s*$/;

/** Heading ids (`{#id}`, not valid MDX) and admonition fences, outside code blocks, rewritten before parsing. */
function preprocess(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let fence: string | null = null;
  const out: string[] = [];
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker))) {
      fence = fence === null ? marker : null;
      out.push(line);
      continue;
    }
    if (fence !== null) {
      out.push(line);
      continue;
    }
    const heading = HEADING_ID.exec(line);
    if (heading) {
      out.push(heading[1] ?? line);
      continue;
    }
    const open = ADMONITION_OPEN.exec(line);
    if (open) {
      const kind = (open[1] ?? '').toLowerCase();
      const label = kind.charAt(0).toUpperCase() + kind.slice(1);
      const title = (open[2] ?? open[3] ?? '').trim();
      out.push(`**${label}${title ? `: ${title}` : ''}**`, '');
      continue;
    }
    if (ADMONITION_CLOSE.test(line)) {
      out.push('');
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

const MDX_REMOVED = new Set(['yaml', 'toml', 'mdxjsEsm', 'mdxFlowExpression', 'mdxTextExpression', 'html']);

interface JsxNode {
  type: 'mdxJsxFlowElement' | 'mdxJsxTextElement';
  name: string | null;
  attributes: { type: string; name?: string; value?: unknown }[];
  children: RootContent[];
}

/** The text a component shows as its label or title (`<TabItem label="npm">`), when given as a plain string. */
function visibleLabel(node: JsxNode): string | null {
  for (const attribute of node.attributes) {
    if (
      attribute.type === 'mdxJsxAttribute' &&
      (attribute.name === 'label' || attribute.name === 'title') &&
      typeof attribute.value === 'string'
    ) {
      return attribute.value.trim() || null;
    }
  }
  return null;
}

function strip(parent: Parent): void {
  const children: RootContent[] = [];
  for (const child of parent.children) {
    const type = (child as { type: string }).type;
    if (MDX_REMOVED.has(type)) continue;
    if (type === 'mdxJsxFlowElement' || type === 'mdxJsxTextElement') {
      const element = child as unknown as JsxNode;
      strip(element);
      const label = visibleLabel(element);
      if (label && type === 'mdxJsxFlowElement')
        children.push({ type: 'paragraph', children: [{ type: 'strong', children: [{ type: 'text', value: label }] }] });
      children.push(...element.children);
      continue;
    }
    if ('children' in child) strip(child);
    children.push(child);
  }
  (parent as { children: RootContent[] }).children = children;
}

function readFrontMatter(tree: Root): Record<string, unknown> {
  const yaml = tree.children.find((node) => node.type === 'yaml');
  if (!yaml || !('value' in yaml)) return {};
  try {
    const value = parseYaml(yaml.value);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parse(text: string, mdx: boolean): Root {
  const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm);
  return (mdx ? processor.use(remarkMdx) : processor).parse(text);
}

const stringifier = unified()
  .use(remarkGfm)
  .use(remarkStringify, { bullet: '-', fences: true, rule: '-', emphasis: '_', listItemIndent: 'one' });

export function toCleanMarkdown(source: string): CleanMarkdown {
  const text = preprocess(source);
  let tree: Root;
  try {
    tree = parse(text, true);
  } catch {
    // Docusaurus would stop on this file; the page is still worth its words (as the ingest reads it).
    tree = parse(text, false);
  }
  const frontMatter = readFrontMatter(tree);
  strip(tree);
  const first = tree.children[0] as Nodes | undefined;
  const markdown = tree.children.length === 0 ? '' : stringifier.stringify(tree);
  return {
    markdown: markdown.trim() ? `${markdown.trim()}\n` : '',
    frontMatter,
    startsWithTitle: first?.type === 'heading' && first.depth === 1,
  };
}
