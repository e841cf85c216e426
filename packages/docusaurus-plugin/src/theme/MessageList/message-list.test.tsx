import { describe, expect, it, jest } from '@jest/globals';
import { render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import MessageList from '@theme/MessageList';
import type { SourceRef } from '@docs-chat/protocol';
import type { ChatMessage } from '../../chat-client/chat-state.js';

function message(overrides: Partial<ChatMessage>): ChatMessage {
  return {
    localId: `m-${Math.random()}`,
    role: 'assistant',
    content: '',
    mode: 'general',
    sources: [],
    status: 'complete',
    serverId: 'c2b1d9e4-5a6f-4b7c-8d9e-0f1a2b3c4d5e',
    finishReason: 'stop',
    warnings: [],
    feedback: null,
    ...overrides,
  };
}

function renderList(messages: ChatMessage[], extra: Partial<Parameters<typeof MessageList>[0]> = {}) {
  const onAsk = jest.fn<(question: string) => void>();
  const onRate = jest.fn<(localId: string, rating: 'up' | 'down') => void>();
  render(
    <MessageList
      messages={messages}
      welcomeMessage="Welcome!"
      suggestedQuestions={['What is docs-chat?']}
      onAsk={onAsk}
      onRate={onRate}
      {...extra}
    />,
  );
  return { onAsk, onRate };
}

describe('MessageList', () => {
  it('offers the suggested questions only while the conversation is empty', async () => {
    const { onAsk } = renderList([]);
    await userEvent.setup().click(screen.getByRole('button', { name: 'What is docs-chat?' }));
    expect(onAsk).toHaveBeenCalledWith('What is docs-chat?');
  });

  it('hides the suggestions once something was asked but keeps the welcome', () => {
    renderList([message({ role: 'user', content: 'Hi', serverId: null })]);
    expect(screen.queryByRole('button', { name: 'What is docs-chat?' })).toBeNull();
    expect(screen.getByText('Welcome!')).toBeTruthy();
  });

  it('shows every exchange in order with who said what for screen readers', () => {
    renderList([
      message({ role: 'user', content: 'First question', serverId: null }),
      message({ content: 'First answer' }),
      message({ role: 'user', content: 'About this passage', mode: 'selection', serverId: null }),
      message({ content: 'Second answer' }),
    ]);
    const items = within(screen.getByRole('region', { name: 'Conversation' })).getAllByRole('listitem');
    // What a screen reader reads: the text without the parts hidden from it.
    const spoken = (item: HTMLElement): string => {
      const copy = item.cloneNode(true) as HTMLElement;
      for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
      return copy.textContent ?? '';
    };
    expect(items.map(spoken)).toEqual([
      'You:First question',
      'Assistant:First answerCopy answer',
      'You:About the selectionAbout this passage',
      'Assistant:Second answerCopy answer',
    ]);
  });

  it('says it is searching before the first token and marks the answer busy while it streams', () => {
    renderList([message({ role: 'user', content: 'Q', serverId: null }), message({ status: 'streaming', content: '' })]);
    expect(screen.getByText('Searching the docs…').closest('[aria-busy]')?.getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByRole('button', { name: 'Copy answer' })).toBeNull();
  });

  it('explains answers that were stopped, interrupted or failed', () => {
    renderList([
      message({ content: 'Half', status: 'stopped' }),
      message({ content: 'Cut', status: 'interrupted' }),
      message({ content: 'Broken', status: 'error' }),
    ]);
    expect(screen.getByText('You stopped this answer.')).toBeTruthy();
    expect(screen.getByText('This answer was interrupted before it finished.')).toBeTruthy();
    expect(screen.getByText('This answer could not be completed.')).toBeTruthy();
  });

  it('shows server warnings under the answer they belong to', () => {
    renderList([message({ content: 'Answer', warnings: ['The selected text was cut to 2000 tokens.'] })]);
    expect(screen.getByText('The selected text was cut to 2000 tokens.')).toBeTruthy();
  });

  it('rates an answer up or down and shows which rating is given', async () => {
    const answer = message({ content: 'Answer', feedback: 'down' });
    const { onRate } = renderList([answer]);
    expect(screen.getByRole('button', { name: 'Unhelpful answer' }).getAttribute('aria-pressed')).toBe('true');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Helpful answer' }));
    expect(onRate).toHaveBeenCalledWith(answer.localId, 'up');
  });

  it('offers no rating for an answer the server never stored', () => {
    renderList([message({ content: 'Answer', serverId: null })]);
    expect(screen.queryByRole('button', { name: 'Helpful answer' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Copy answer' })).toBeTruthy();
  });

  it('links each citation of a finished answer to the source it names, and numbers the source list as the citations do', () => {
    const source = (name: string): SourceRef => ({
      file: `${name}.md`,
      title: name,
      heading: null,
      heading_path: [name],
      url: `/docs/${name}`,
      score: 0.5,
    });
    // The server keeps the cited sources in order of first citation: [3] then [1]; [2] was not cited.
    renderList([
      message({ content: 'Install it [3]. Configure it [1].', sources: [source('install'), source('configure')], citedSourcesOnly: true }),
    ]);
    expect(screen.getByRole('link', { name: 'Source 3: install' }).getAttribute('href')).toBe('/docs/install');
    expect(screen.getByRole('link', { name: 'Source 1: configure' }).getAttribute('href')).toBe('/docs/configure');
    const list = screen.getByRole('navigation', { name: 'Sources of answer 1' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['3install', '1configure']);
  });

  it('renders a citation without a matching source as plain text', () => {
    renderList([message({ content: 'As the docs say [4].' })]);
    expect(screen.getByText('As the docs say [4].')).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('renders markdown answers: headings under the panel title, lists, quotes and external links', () => {
    renderList([
      message({
        content:
          '# Setup\n\n1. Install\n2. Configure\n\n> Note this\n\nRead [more](https://docusaurus.io) and ~~old~~ **new** *text*.\n\n---',
      }),
    ]);
    expect(screen.getByRole('heading', { level: 3, name: 'Setup' })).toBeTruthy();
    expect(screen.getAllByRole('listitem').some((item) => item.textContent === 'Install')).toBe(true);
    expect(screen.getByText('Note this').closest('blockquote')).toBeTruthy();
    const link = screen.getByRole('link', { name: 'more' });
    expect(link.getAttribute('target')).toBe('_blank');
    expect(screen.getByText('old').tagName).toBe('DEL');
    expect(screen.getByText('new').tagName).toBe('STRONG');
    expect(screen.getByText('text').tagName).toBe('EM');
    expect(screen.getByRole('separator')).toBeTruthy();
  });
});
