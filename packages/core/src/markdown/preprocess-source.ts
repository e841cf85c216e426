/**
 * Text rewrites Docusaurus 3 applies before MDX sees a file (mdx-loader's
 * preprocessor and its `mdx1Compat` options), so that our parse matches what
 * the site renders. Unlike Docusaurus we leave fenced code untouched: the
 * rewrites exist for prose, and code must reach readers exactly as written.
 */

/** Admonition keywords Docusaurus recognises by default. */
export const ADMONITION_KEYWORDS = ['secondary', 'info', 'success', 'danger', 'note', 'tip', 'warning', 'important', 'caution'] as const;

const ADMONITION_WITH_TITLE = new RegExp(`^((?:> ?)*)( +|\\t+)?(:{3,}(?:${ADMONITION_KEYWORDS.join('|')})) +(.*)$`);
const FENCE_OPEN = /^\s*(?:>\s*)*(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^#{1,6}(?!#)/;

export type PreprocessMode = 'mdx' | 'markdown';

export interface PreprocessedSource {
  text: string;
  /**
   * Contents of the fenced code blocks that were replaced by a placeholder
   * line (see `codePlaceholder`). Parsing code through micromark character by
   * character is a large share of the parse time; the fence lines stay, so
   * the parser still sees a code block with its language and meta.
   */
  extractedCode: string[];
}

/** The single line standing for extracted code block `index` (private-use characters never found in docs). */
export function codePlaceholder(index: number): string {
  return `\uE000${index}\uE000`;
}

/**
 * Applies, outside fenced code:
 * - `:::note Title` → `:::note[Title]` (Docusaurus' legacy admonition title);
 * - `## Heading {#id}` → `## Heading \{#id}` so MDX does not read `{#id}` as an expression;
 * - HTML comments → MDX comments in `mdx` mode (Docusaurus parses them as comments),
 *   or removed in `markdown` mode; a heading's trailing `<!-- #id -->` keeps working either way.
 * - in `markdown` mode, also MDX comments and top-level `import`/`export` blocks are removed,
 *   since the tolerant parse would otherwise show them as prose.
 */
export function preprocessSource(text: string, mode: PreprocessMode, options: { extractCode?: boolean } = {}): PreprocessedSource {
  const lines = text.split(/\r?\n/);
  const output: string[] = [];
  const extractedCode: string[] = [];
  let fence: { marker: string; length: number; indent: number; openLine: number; extractable: boolean } | undefined;
  let inEsm = false;
  let prose: string[] = [];
  const flushProse = (): void => {
    if (prose.length === 0) return;
    output.push(...rewriteComments(prose.join('\n'), mode).split('\n'));
    prose = [];
  };
  for (const line of lines) {
    if (fence) {
      output.push(line);
      const close = FENCE_OPEN.exec(line);
      const marker = close?.[1];
      if (marker && marker[0] === fence.marker && marker.length >= fence.length && (close?.[2] ?? '').trim() === '') {
        if (options.extractCode && fence.extractable) collapseFence(output, fence, extractedCode);
        fence = undefined;
        continue;
      }
      // Only a fence whose every line sits at least as deep as its opening can be swapped
      // safely: a shallower line could end an enclosing list item, and with it the fence.
      if (line.trim() !== '' && !line.startsWith(' '.repeat(fence.indent))) fence.extractable = false;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    const openMarker = open?.[1];
    // A backtick fence's info string may not contain backticks (CommonMark), else it is inline code.
    if (openMarker && !(openMarker[0] === '`' && (open?.[2] ?? '').includes('`'))) {
      flushProse();
      const prefix = line.slice(0, line.indexOf(openMarker));
      fence = {
        marker: openMarker[0] ?? '`',
        length: openMarker.length,
        indent: prefix.length,
        openLine: output.length,
        extractable: /^ *$/.test(prefix),
      };
      output.push(line);
      continue;
    }
    if (mode === 'markdown') {
      if (inEsm) {
        if (line.trim() === '') inEsm = false;
        else {
          prose.push('');
          continue;
        }
      }
      if (/^(?:import|export)\s/.test(line)) {
        inEsm = true;
        prose.push('');
        continue;
      }
    }
    let rewritten = line;
    if (ATX_HEADING.test(rewritten) && mode === 'mdx') rewritten = rewritten.replace(/(?<!\\)\{#/, '\\{#');
    const admonition = ADMONITION_WITH_TITLE.exec(rewritten);
    if (admonition) rewritten = `${admonition[1] ?? ''}${admonition[2] ?? ''}${admonition[3] ?? ''}[${admonition[4] ?? ''}]`;
    prose.push(rewritten);
  }
  flushProse();
  return { text: output.join('\n'), extractedCode };
}

/** Replaces the content lines of a just-closed fence in `output` by one placeholder line. */
function collapseFence(output: string[], fence: { indent: number; openLine: number }, extractedCode: string[]): void {
  const closing = output.pop() ?? '';
  const content = output.splice(fence.openLine + 1);
  // CommonMark removes up to the opening fence's indentation from each content line.
  const stripped = content.map((line) => {
    let remove = 0;
    while (remove < fence.indent && line.charCodeAt(remove) === 32) remove++;
    return line.slice(remove);
  });
  const index = extractedCode.length;
  extractedCode.push(stripped.join('\n'));
  output.push(' '.repeat(fence.indent) + codePlaceholder(index), closing);
}

function rewriteComments(prose: string, mode: PreprocessMode): string {
  let result = prose.replace(/<!--([\s\S]*?)-->/g, (_comment, body: string) => {
    if (mode === 'mdx') return `{/*${body.replace(/\*\//g, '* /')}*/}`;
    // Keep a heading id the comment carries, in the classic syntax the markdown path understands.
    const id = /^\s*#(\S+)/.exec(body)?.[1];
    return id ? `{#${id}}` : body.replace(/[^\n]/g, '');
  });
  if (mode === 'markdown') {
    result = result.replace(/\{\/\*([\s\S]*?)\*\/\}/g, (_comment, body: string) => {
      const id = /^\s*#(\S+)/.exec(body)?.[1];
      return id ? `{#${id}}` : body.replace(/[^\n]/g, '');
    });
  }
  return result;
}
