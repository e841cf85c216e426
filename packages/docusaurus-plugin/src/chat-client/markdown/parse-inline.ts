import type { InlineNode } from './markdown-ast.js';

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|~<>"']/;
// Links a reader can follow safely: web, mail, and site-relative. `javascript:` and friends stay text.
const SAFE_HREF = /^(https?:\/\/|mailto:|\/(?!\/)|#|\.{1,2}\/)/i;
const BARE_URL = /^https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"\]]/;

export function isSafeHref(href: string): boolean {
  return SAFE_HREF.test(href.trim());
}

function pushText(nodes: InlineNode[], value: string): void {
  if (value === '') return;
  const last = nodes[nodes.length - 1];
  if (last?.type === 'text') last.value += value;
  else nodes.push({ type: 'text', value });
}

/** Finds the `]` that closes the `[` at `open`, skipping nested brackets and code spans. */
function findClosingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === '[') depth += 1;
    else if (char === ']') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function findClosingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Finds a closing emphasis delimiter that is not preceded by whitespace. */
function findClosingDelimiter(text: string, from: number, delimiter: string): number {
  let index = text.indexOf(delimiter, from);
  while (index !== -1) {
    const before = text[index - 1];
    const after = text[index + delimiter.length];
    const isLonger = delimiter.length === 1 && after === delimiter; // `*` must not match half of `**`
    if (before !== undefined && !/\s/.test(before) && !isLonger) {
      if (delimiter[0] !== '_' || after === undefined || !/[\p{L}\p{N}]/u.test(after)) return index;
    }
    index = text.indexOf(delimiter, index + (isLonger ? 2 : 1));
  }
  return -1;
}

/** Parses one block's inline markdown: code, emphasis, links, citations, line breaks. Never HTML. */
export function parseInline(text: string): InlineNode[] {
  const nodes: InlineNode[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    const rest = text.slice(i);

    if (char === '\\') {
      const next = text[i + 1];
      if (next === '\n') {
        nodes.push({ type: 'break' });
        i += 2;
        continue;
      }
      if (next !== undefined && ESCAPABLE.test(next)) {
        pushText(nodes, next);
        i += 2;
        continue;
      }
    }

    if (char === '\n') {
      // Two trailing spaces make a hard break; a plain newline is a soft break (a space).
      const previous = nodes[nodes.length - 1];
      if (previous?.type === 'text' && / {2,}$/.test(previous.value)) {
        previous.value = previous.value.replace(/ +$/, '');
        nodes.push({ type: 'break' });
      } else {
        pushText(nodes, ' ');
      }
      i += 1;
      continue;
    }

    if (char === '`') {
      const run = /^`+/.exec(rest)?.[0] ?? '`';
      const close = text.indexOf(run, i + run.length);
      if (close !== -1) {
        let code = text.slice(i + run.length, close).replace(/\n/g, ' ');
        if (/^ .* $/.test(code) && code.trim() !== '') code = code.slice(1, -1);
        nodes.push({ type: 'inlineCode', value: code });
        i = close + run.length;
        continue;
      }
      pushText(nodes, run);
      i += run.length;
      continue;
    }

    if (char === '[') {
      const citations = /^\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/.exec(rest);
      if (citations && text[i + (citations[0]?.length ?? 0)] !== '(') {
        for (const number of (citations[1] ?? '').split(',')) nodes.push({ type: 'citation', index: Number(number.trim()) });
        i += citations[0]?.length ?? 0;
        continue;
      }
      const close = findClosingBracket(text, i);
      if (close !== -1 && text[close + 1] === '(') {
        const end = findClosingParen(text, close + 1);
        if (end !== -1) {
          const label = text.slice(i + 1, close);
          const target = text.slice(close + 2, end).trim();
          const href = (/^<([^>]*)>/.exec(target)?.[1] ?? target.split(/\s+/)[0] ?? '').trim();
          const children = parseInline(label);
          if (isSafeHref(href)) nodes.push({ type: 'link', href, children });
          else nodes.push(...children); // Unsafe scheme: keep the words, drop the link.
          i = end + 1;
          continue;
        }
      }
    }

    if (char === '<') {
      const autolink = /^<(https?:\/\/[^\s>]+|mailto:[^\s>]+)>/i.exec(rest);
      if (autolink?.[1]) {
        nodes.push({ type: 'link', href: autolink[1], children: [{ type: 'text', value: autolink[1].replace(/^mailto:/i, '') }] });
        i += autolink[0].length;
        continue;
      }
    }

    if (char === 'h' && (i === 0 || /[\s(]/.test(text[i - 1] ?? ''))) {
      const url = BARE_URL.exec(rest)?.[0];
      if (url) {
        nodes.push({ type: 'link', href: url, children: [{ type: 'text', value: url }] });
        i += url.length;
        continue;
      }
    }

    if (char === '~' && rest.startsWith('~~')) {
      const close = findClosingDelimiter(text, i + 2, '~~');
      if (close > i + 2) {
        nodes.push({ type: 'delete', children: parseInline(text.slice(i + 2, close)) });
        i = close + 2;
        continue;
      }
    }

    if (char === '*' || char === '_') {
      const double = text[i + 1] === char;
      const delimiter = double ? char + char : char;
      const opensWord = text[i + delimiter.length] !== undefined && !/\s/.test(text[i + delimiter.length] ?? '');
      const intraword = char === '_' && i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1] ?? '');
      if (opensWord && !intraword) {
        const close = findClosingDelimiter(text, i + delimiter.length, delimiter);
        if (close > i + delimiter.length) {
          const children = parseInline(text.slice(i + delimiter.length, close));
          nodes.push(double ? { type: 'strong', children } : { type: 'emphasis', children });
          i = close + delimiter.length;
          continue;
        }
      }
      pushText(nodes, delimiter);
      i += delimiter.length;
      continue;
    }

    // Plain text up to the next character that may start markup.
    const plain = /^[^\\\n`[<h~*_]+/.exec(rest)?.[0] ?? char;
    pushText(nodes, plain);
    i += plain.length;
  }
  return nodes;
}
