import type { SourceRef } from '@docs-chat/core/protocol';
import type { StoredConversation, StoredMessage } from '../conversations/conversation-store.js';
import { conversationToMarkdown } from './conversation-markdown.js';

function source(title: string, url: string, heading = 'Usage'): SourceRef {
  return { file: `${title}.md`, title, heading, heading_path: [title, heading], url, score: 0.5 };
}

function message(role: 'user' | 'assistant', content: string, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: 'm',
    conversationId: 'c',
    role,
    content,
    mode: 'general',
    sources: [],
    status: 'complete',
    finishReason: null,
    createdAt: '2026-11-24T10:00:00.000Z',
    ...extra,
  };
}

function conversation(messages: StoredMessage[]): StoredConversation {
  return { id: 'c', createdAt: '2026-11-24T10:00:00.000Z', messages };
}

describe('a conversation exported as Markdown', () => {
  it('links each citation to the source it cites, in order of first citation, and lists the sources', () => {
    // The stored sources are the cited ones in order of first citation: [3] is the first, [1] the second.
    const sources = [source('Install', '/docs/install#usage'), source('Locks', '/docs/locks', 'Locks')];
    const markdown = conversationToMarkdown(
      conversation([message('user', 'How?'), message('assistant', 'Run the installer [3], then lock it [1][3].', { sources })]),
      { siteUrl: 'https://docs.example.com/' },
    );
    expect(markdown).toContain(
      'Run the installer [[3]](https://docs.example.com/docs/install#usage), then lock it [[1]](https://docs.example.com/docs/locks)[[3]](https://docs.example.com/docs/install#usage).',
    );
    expect(markdown).toContain(
      '**Sources**\n\n1. [Install › Usage](https://docs.example.com/docs/install#usage)\n2. [Locks](https://docs.example.com/docs/locks)',
    );
    expect(markdown.startsWith('# Conversation with the docs assistant\n\n_Started 2026-11-24T10:00:00.000Z_\n\n## Question\n\nHow?')).toBe(
      true,
    );
  });

  it('leaves brackets inside code alone, and keeps relative links when the site address is not known', () => {
    const sources = [source('Arrays', '/docs/arrays')];
    const content = 'Use `items[1]` as in [1]:\n\n```js\nconst first = items[1];\n```';
    const markdown = conversationToMarkdown(conversation([message('assistant', content, { sources })]));
    expect(markdown).toContain('Use `items[1]` as in [[1]](/docs/arrays):\n\n```js\nconst first = items[1];\n```');
  });

  it('says when an answer was cut short or failed, and escapes brackets in source titles', () => {
    const markdown = conversationToMarkdown(
      conversation([
        message('assistant', 'Half an ans', { status: 'interrupted', sources: [source('Arrays [beta]', '/docs/a b')] }),
        message('assistant', '', { status: 'error' }),
      ]),
    );
    expect(markdown).toContain('Half an ans\n\n_This answer was cut short._');
    expect(markdown).toContain('1. [Arrays \\[beta\\] › Usage](/docs/a%20b)');
    expect(markdown).toContain('_This answer failed._');
  });
});
