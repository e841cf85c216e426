/**
 * A stored conversation as a Markdown document the reader can keep: each
 * question and answer in order, the answer's `[n]` citations turned into links
 * to the cited sections, and a list of sources under each answer.
 *
 * A stored answer keeps the sources it cited in order of first citation (see
 * `cited-sources.ts`), so the k-th distinct number cited is the k-th source,
 * the same pairing the widget shows.
 */
import type { SourceRef } from '@docs-chat/core/protocol';
import type { StoredConversation } from '../conversations/conversation-store.js';
import { citedNumbers } from './cited-sources.js';

export interface MarkdownExportOptions {
  /** The docs site's address (e.g. https://docs.example.com): relative source links are made absolute against it. */
  siteUrl?: string;
}

/** A source's link: absolute against the site when one is known, else as stored. */
function sourceHref(source: SourceRef, siteUrl: string | undefined): string {
  if (siteUrl === undefined) return source.url;
  try {
    return new URL(source.url, siteUrl).toString();
  } catch {
    return source.url;
  }
}

/** Markdown link text cannot hold unescaped brackets; a URL cannot hold spaces or parentheses unencoded. */
function linkText(text: string): string {
  return text.replace(/([\\[\]])/g, '\\$1');
}
function linkTarget(href: string): string {
  return href.replace(/[ ()]/g, (character) => encodeURIComponent(character));
}

function sourceTitle(source: SourceRef): string {
  return source.heading && source.heading !== source.title ? `${source.title} › ${source.heading}` : source.title;
}

/** Replaces each `[n]` outside code with `[[n]](href)`; numbers without a source stay as they are. */
function linkCitations(answer: string, hrefByNumber: ReadonlyMap<number, string>): string {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of answer.split('\n')) {
    const marker = /^\s*(?:>\s*)*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      lines.push(line);
    } else if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      lines.push(line);
    } else {
      // Split off code spans (odd parts) so `items[1]` is left alone.
      const parts = line.split(/(`+[\s\S]*?`+)/);
      lines.push(
        parts
          .map((part, index) =>
            index % 2 === 1
              ? part
              : part.replace(/(?<!\\)\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/g, (whole, list: string) =>
                  list
                    .split(',')
                    .map((value) => {
                      const number = Number(value.trim());
                      const href = hrefByNumber.get(number);
                      return href === undefined ? `[${number}]` : `[[${number}]](${linkTarget(href)})`;
                    })
                    .join(''),
                ),
          )
          .join(''),
      );
    }
  }
  return lines.join('\n');
}

export function conversationToMarkdown(conversation: StoredConversation, options: MarkdownExportOptions = {}): string {
  const out: string[] = ['# Conversation with the docs assistant', '', `_Started ${conversation.createdAt}_`, ''];
  for (const message of conversation.messages) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      out.push('## Question', '', message.content.trim(), '');
      continue;
    }
    out.push('### Answer', '');
    if (message.status === 'pending') out.push('_This answer was still being written when the conversation was exported._', '');
    else if (message.status === 'error') out.push('_This answer failed._', '');
    const hrefs = message.sources.map((source) => sourceHref(source, options.siteUrl));
    const hrefByNumber = new Map<number, string>();
    citedNumbers(message.content).forEach((number, index) => {
      const href = hrefs[index];
      if (href !== undefined) hrefByNumber.set(number, href);
    });
    if (message.content.trim() !== '') out.push(linkCitations(message.content.trim(), hrefByNumber), '');
    if (message.status === 'interrupted') out.push('_This answer was cut short._', '');
    if (message.sources.length > 0) {
      out.push('**Sources**', '');
      message.sources.forEach((source, index) => {
        out.push(`${index + 1}. [${linkText(sourceTitle(source))}](${linkTarget(hrefs[index] ?? source.url)})`);
      });
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
