import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { act, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { readFixture, startChatTestServer, type ChatTestServer } from '../../test-doubles/chat-server.js';
import { PAGE_PARAGRAPH, renderWidget, selectTextOf, testSettings } from '../../test-doubles/render-widget.js';
import { CONVERSATION_STORAGE_KEY } from '../../chat-client/use-conversation-persistence.js';
import { navigateForTest } from '../../test-doubles/docusaurus/router.js';
import { compileRoutePattern } from '../../options.js';

let server: ChatTestServer;
beforeAll(async () => {
  server = await startChatTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  window.history.pushState({}, '', '/docs/intro');
});

const CONVERSATION_ID = '7f0c6a52-3f1e-4d2b-9a57-2d7f4c1e8b90';
const MESSAGE_ID = 'c2b1d9e4-5a6f-4b7c-8d9e-0f1a2b3c4d5e';

async function openPanel(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: /ask the docs/i }));
  return screen.findByRole('dialog', { name: 'Ask the docs' });
}

async function ask(user: ReturnType<typeof userEvent.setup>, question: string) {
  await user.type(screen.getByRole('textbox', { name: 'Your question' }), `${question}{Enter}`);
}

/** The conversation region, so answer text is not confused with the live region's copy of it. */
function conversation(panel: HTMLElement): HTMLElement {
  return within(panel).getByRole('region', { name: 'Conversation' });
}

function chatRequests() {
  return server.requests.filter((request) => request.url === '/chat');
}

describe('ChatWidget', () => {
  it('shows a launcher in the corner and opens the panel with the welcome and suggested questions', async () => {
    const user = userEvent.setup();
    renderWidget(testSettings(server.url));
    const launcher = screen.getByRole('button', { name: 'Ask the docs (Ctrl+I)' });
    expect(launcher.getAttribute('aria-expanded')).toBe('false');
    const panel = await openPanel(user);
    expect(within(conversation(panel)).getByText(/Ask me anything about these docs/)).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'How do I install the plugin?' })).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('textbox', { name: 'Your question' })));
  });

  it('toggles with Ctrl+I and closes on Escape, returning focus to the launcher', async () => {
    const user = userEvent.setup();
    renderWidget(testSettings(server.url));
    await user.keyboard('{Control>}i{/Control}');
    const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
    await waitFor(() => expect(panel.contains(document.activeElement)).toBe(true));
    expect(document.documentElement.dataset.docsChatPanel).toBe('right');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.documentElement.dataset.docsChatPanel).toBeUndefined();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: /ask the docs/i }));
    await user.keyboard('{Control>}i{/Control}');
    expect(await screen.findByRole('dialog')).toBeTruthy();
    await user.keyboard('{Control>}i{/Control}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('streams an answer with citations and a source list that navigates within the site', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('general-answer.sse'), chunkSizes: [40, 40, 40], pauseMs: 5 });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'How do I re-run the ingest?');

    expect(await within(conversation(panel)).findByText(/only changed files are re-embedded/)).toBeTruthy();
    const sources = await within(panel).findByRole('navigation', { name: /^Sources/ });
    const sourceLink = within(sources).getByRole('link', { name: /Ingest.*Re-running the ingest/ });
    expect(sourceLink.getAttribute('href')).toBe('/docs/guides/ingest#re-running-the-ingest');
    const citation = within(panel).getByRole('link', { name: 'Source 1: Ingest, Re-running the ingest' });
    expect(citation.getAttribute('href')).toBe('/docs/guides/ingest#re-running-the-ingest');

    await user.click(sourceLink);
    expect(window.location.pathname).toBe('/docs/guides/ingest');
    expect(window.location.hash).toBe('#re-running-the-ingest');

    const body = chatRequests().at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ message: 'How do I re-run the ingest?', mode: 'general', page: { url: 'http://localhost/docs/intro' } });
  });

  it('announces the whole answer once, in a polite live region', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    const liveRegion = panel.querySelector('[aria-live="polite"][aria-atomic="true"]');
    expect(liveRegion?.textContent).toBe('');
    await ask(user, 'How do I re-run the ingest?');
    await waitFor(() => expect(liveRegion?.textContent).toContain('Run pnpm docs-chat ingest again: only changed files are re-embedded'));
    expect(liveRegion?.textContent).toContain('Deleted pages are removed');
  });

  it('sends a suggested question when it is clicked', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('heartbeats.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await user.click(within(panel).getByRole('button', { name: 'How does the ingest work?' }));
    expect(await within(conversation(panel)).findByText('Slow but steady.')).toBeTruthy();
    expect(chatRequests().at(-1)?.body).toMatchObject({ message: 'How does the ingest work?', mode: 'general' });
  });

  it('shows HTML from an answer as text and never runs it', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('html-in-answer.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Show me HTML');
    expect(await within(conversation(panel)).findByText(/<img src=x onerror="window.__pwned=1">/)).toBeTruthy();
    expect(within(conversation(panel)).getByText(/<script>window.__pwned=2<\/script>/)).toBeTruthy();
    expect(panel.querySelector('img')).toBeNull();
    expect(panel.querySelector('script')).toBeNull();
    expect(within(panel).queryByRole('link', { name: 'click' })).toBeNull();
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('renders code blocks through the site CodeBlock and tables as tables', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('code-and-table.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'How do I configure it?');
    const code = await within(panel).findByTestId('site-code-block');
    expect(code.getAttribute('data-language')).toBe('js');
    expect(code.textContent).toContain('export default { plugins: ["@docs-chat/docusaurus-plugin"] };');
    const table = within(panel).getByRole('table');
    expect(within(table).getByRole('columnheader', { name: 'Option' })).toBeTruthy();
    expect(within(table).getByRole('cell', { name: 'http://localhost:8000' })).toBeTruthy();
  });

  it('gives the site CodeBlock the page colour mode, and follows it when the page switches to dark', async () => {
    const user = userEvent.setup();
    document.documentElement.setAttribute('data-theme', 'light');
    try {
      server.answerChatWith({ body: readFixture('code-and-table.sse') });
      renderWidget(testSettings(server.url));
      const panel = await openPanel(user);
      await ask(user, 'How do I configure it?');
      const code = await within(panel).findByTestId('site-code-block');
      expect(code.getAttribute('data-color-mode')).toBe('light');
      // The page's MutationObserver reports in a microtask: an async act lets React's update land inside it.
      await act(async () => document.documentElement.setAttribute('data-theme', 'dark'));
      await waitFor(() => expect(within(panel).getByTestId('site-code-block').getAttribute('data-color-mode')).toBe('dark'));
      expect(within(panel).getByTestId('site-code-block').textContent).toContain(
        'export default { plugins: ["@docs-chat/docusaurus-plugin"] };',
      );
    } finally {
      await act(async () => document.documentElement.removeAttribute('data-theme'));
    }
  });

  it('when the panel fails to render, only the panel is replaced by a short message, and Start new opens a fresh panel', async () => {
    const user = userEvent.setup();
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      server.answerChatWith({ body: readFixture('code-block-that-fails-to-render.sse') });
      renderWidget(testSettings(server.url));
      await openPanel(user);
      await ask(user, 'Show me the broken block');
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toContain('The assistant hit a problem and closed this conversation. The page is fine.');
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(screen.getByTestId('page-paragraph').textContent).toBe(PAGE_PARAGRAPH);

      await user.click(within(alert).getByRole('button', { name: 'Start new' }));
      const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
      expect(within(conversation(panel)).getByText(/Ask me anything about these docs/)).toBeTruthy();
      expect(within(conversation(panel)).queryByText('Show me the broken block')).toBeNull();
      expect(screen.queryByText(/The assistant hit a problem/)).toBeNull();
    } finally {
      consoleError.mockRestore();
    }
  });

  it('stops generating on request, closing the connection and keeping the partial answer', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('held-open.sse'), holdOpen: true });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    const disconnected = server.nextDisconnect();
    await ask(user, 'Tell me everything');
    expect(await within(conversation(panel)).findByText('Streaming…')).toBeTruthy();
    await user.click(within(panel).getByRole('button', { name: 'Stop generating' }));
    await disconnected;
    expect(await within(conversation(panel)).findByText('You stopped this answer.')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Send question' })).toBeTruthy();
  });

  it('closing the panel only hides it: the answer keeps streaming and is there when the panel reopens', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('held-open.sse'), holdOpen: true });
    renderWidget(testSettings(server.url));
    let panel = await openPanel(user);
    const disconnected = server.nextDisconnect().then(() => 'disconnected');
    await ask(user, 'Tell me everything');
    await within(conversation(panel)).findByText('Streaming…');
    await user.click(within(panel).getByRole('button', { name: 'Close chat' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    // Inside act: the page's selection listener reacts to the click while we wait.
    let outcome: unknown;
    await act(async () => {
      outcome = await Promise.race([disconnected, new Promise((resolve) => setTimeout(() => resolve('still streaming'), 300))]);
    });
    expect(outcome).toBe('still streaming');
    panel = await openPanel(user);
    expect(within(conversation(panel)).getByText('Streaming…')).toBeTruthy();
    expect(within(conversation(panel)).queryByText('You stopped this answer.')).toBeNull();
    // Only Stop stops it.
    await user.click(within(panel).getByRole('button', { name: 'Stop generating' }));
    await expect(disconnected).resolves.toBe('disconnected');
  });

  it('explains a rate limit and retries the same question on request', async () => {
    const user = userEvent.setup();
    server.answerChatWith(
      { status: 429, headers: { 'retry-after': '30' }, json: { error: { code: 'rate_limited', message: 'Too many requests' } } },
      { body: readFixture('heartbeats.sse') },
    );
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Why is the sky blue?');
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain('Please wait 30 seconds, then try again.');
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await within(conversation(panel)).findByText('Slow but steady.')).toBeTruthy();
    expect(chatRequests().map((request) => (request.body as { message: string }).message)).toEqual([
      'Why is the sky blue?',
      'Why is the sky blue?',
    ]);
    expect(within(conversation(panel)).getAllByText('Why is the sky blue?')).toHaveLength(1);
    expect(within(panel).queryByRole('alert')).toBeNull();
  });

  it('says how long to wait when the server refuses a question as busy, and retries it on request', async () => {
    const user = userEvent.setup();
    server.answerChatWith(
      {
        status: 503,
        headers: { 'retry-after': '2' },
        json: { error: { code: 'service_busy', message: 'Service temporarily busy, please try again in a moment' } },
      },
      { body: readFixture('heartbeats.sse') },
    );
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Why is the sky blue?');
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain('The docs assistant is busy right now. Please try again in 2 seconds.');
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await within(conversation(panel)).findByText('Slow but steady.')).toBeTruthy();
    expect(within(conversation(panel)).getAllByText('Why is the sky blue?')).toHaveLength(1);
    expect(within(panel).queryByRole('alert')).toBeNull();
  });

  it('says when the server is busy mid-answer', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('error-busy.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Anything');
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain('The docs assistant is busy right now.');
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('says when the server cannot be reached (the assistant is offline), and the reader can dismiss it', async () => {
    const user = userEvent.setup();
    const gone = await startChatTestServer();
    await gone.close();
    renderWidget(testSettings(gone.url, { search: { staticIndex: false } }));
    const panel = await openPanel(user);
    await ask(user, 'Anything');
    const notice = (await within(panel).findByText(/The assistant is offline right now/)).closest('[role="status"]') as HTMLElement;
    expect(within(panel).queryByRole('alert')).toBeNull();
    await user.click(within(notice).getByRole('button', { name: 'Dismiss' }));
    expect(within(panel).queryByText(/The assistant is offline right now/)).toBeNull();
    // The Dismiss button went away with the notice: focus goes back to the question box, not to the page's body.
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('textbox', { name: 'Your question' })));
  });

  it('copies an answer and stores a thumbs-up through POST /feedback', async () => {
    const user = userEvent.setup();
    const copied: string[] = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (text: string) => void copied.push(text) },
    });
    server.answerChatWith({ body: readFixture('heartbeats.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Is it slow?');
    await within(conversation(panel)).findByText('Slow but steady.');
    await user.click(within(panel).getByRole('button', { name: 'Copy answer' }));
    expect(copied).toEqual(['Slow but steady.']);
    expect(within(panel).getByRole('button', { name: 'Copied' })).toBeTruthy();

    const up = within(panel).getByRole('button', { name: 'Helpful answer' });
    await user.click(up);
    await waitFor(() => expect(server.requests.some((request) => request.url === '/feedback')).toBe(true));
    expect(server.requests.find((request) => request.url === '/feedback')?.body).toEqual({ message_id: MESSAGE_ID, rating: 'up' });
    expect(up.getAttribute('aria-pressed')).toBe('true');
    expect(within(conversation(panel)).getByText('Thanks for the feedback')).toBeTruthy();
  });

  it('withdraws a rating the server could not store and says why', async () => {
    const user = userEvent.setup();
    server.feedbackStatus = 503;
    try {
      server.answerChatWith({ body: readFixture('heartbeats.sse') });
      renderWidget(testSettings(server.url));
      const panel = await openPanel(user);
      await ask(user, 'Is it slow?');
      await within(conversation(panel)).findByText('Slow but steady.');
      const down = within(panel).getByRole('button', { name: 'Unhelpful answer' });
      await user.click(down);
      const alert = await within(panel).findByRole('alert');
      expect(alert.textContent).toContain('busy');
      expect(down.getAttribute('aria-pressed')).toBe('false');
      expect(within(alert).queryByRole('button', { name: 'Retry' })).toBeNull();
    } finally {
      server.feedbackStatus = 201;
    }
  });

  it('remembers the conversation and offers to resume it or start new when reopened later', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    const first = renderWidget(testSettings(server.url));
    let panel = await openPanel(user);
    await ask(user, 'How do I re-run the ingest?');
    await within(conversation(panel)).findByText(/only changed files/);
    expect(JSON.parse(window.localStorage.getItem(CONVERSATION_STORAGE_KEY) ?? '{}')).toMatchObject({ id: CONVERSATION_ID });
    first.unmount();

    server.conversations.set(CONVERSATION_ID, {
      id: CONVERSATION_ID,
      created_at: '2026-11-21T10:00:00Z',
      messages: [
        {
          id: 'a1b2c3d4-0000-4000-8000-000000000001',
          role: 'user',
          content: 'How do I re-run the ingest?',
          mode: 'general',
          sources: [],
          status: 'complete',
          finish_reason: null,
          created_at: '',
        },
        {
          id: MESSAGE_ID,
          role: 'assistant',
          content: 'Run it again [1].',
          mode: 'general',
          sources: [{ file: 'guides/ingest.md', title: 'Ingest', heading: null, heading_path: [], url: '/docs/guides/ingest', score: 1 }],
          status: 'complete',
          finish_reason: 'stop',
          created_at: '',
        },
      ],
    });
    renderWidget(testSettings(server.url));
    panel = await openPanel(user);
    await user.click(await within(panel).findByRole('button', { name: 'Resume last conversation' }));
    await within(panel).findByRole('region', { name: 'Conversation' });
    expect(await within(conversation(panel)).findByText(/Run it again/)).toBeTruthy();
    expect(within(conversation(panel)).getByText('How do I re-run the ingest?')).toBeTruthy();

    server.answerChatWith({ body: readFixture('heartbeats.sse') });
    await ask(user, 'And then?');
    await within(conversation(panel)).findByText('Slow but steady.');
    expect(chatRequests().at(-1)?.body).toMatchObject({ conversation_id: CONVERSATION_ID });

    await user.click(within(panel).getByRole('button', { name: 'New chat' }));
    expect(within(conversation(panel)).queryByText(/Run it again/)).toBeNull();
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
  });

  function storeConversation(answer: Record<string, unknown>): void {
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: CONVERSATION_ID, savedAt: '' }));
    server.conversations.set(CONVERSATION_ID, {
      id: CONVERSATION_ID,
      created_at: '2026-11-21T10:00:00Z',
      messages: [
        {
          id: 'a1b2c3d4-0000-4000-8000-000000000001',
          role: 'user',
          content: 'How do I re-run the ingest?',
          mode: 'general',
          sources: [],
          status: 'complete',
          finish_reason: null,
          created_at: '',
        },
        { id: MESSAGE_ID, role: 'assistant', mode: 'general', sources: [], finish_reason: null, created_at: '', ...answer },
      ],
    });
  }

  async function resumeStored(user: ReturnType<typeof userEvent.setup>): Promise<HTMLElement> {
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await user.click(await within(panel).findByRole('button', { name: 'Resume last conversation' }));
    await within(await within(panel).findByRole('region', { name: 'Conversation' })).findByText('How do I re-run the ingest?');
    return panel;
  }

  it('shows a resumed answer the server marked interrupted as interrupted, keeps its partial text, and offers to ask again', async () => {
    const user = userEvent.setup();
    storeConversation({ content: 'Run the ingest again; it re-embeds', status: 'interrupted', finish_reason: 'interrupted' });
    const panel = await resumeStored(user);
    expect(within(conversation(panel)).getByText(/it re-embeds/)).toBeTruthy();
    expect(within(conversation(panel)).getByText('This answer was interrupted before it finished.')).toBeTruthy();
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    await user.click(within(conversation(panel)).getByRole('button', { name: 'Ask again' }));
    await within(conversation(panel)).findByText(/only changed files/);
    expect(chatRequests().at(-1)?.body).toMatchObject({
      message: 'How do I re-run the ingest?',
      mode: 'general',
      conversation_id: CONVERSATION_ID,
    });
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('textbox', { name: 'Your question' })));
  });

  it('shows an answer the server has not finished yet as unfinished, not as an empty complete answer', async () => {
    const user = userEvent.setup();
    storeConversation({ content: '', status: 'pending' });
    const panel = await resumeStored(user);
    const answer = within(conversation(panel)).getByText(/not finished yet/);
    expect(answer).toBeTruthy();
    expect(within(conversation(panel)).queryByRole('button', { name: 'Copy answer' })).toBeNull();
    expect(within(conversation(panel)).queryByRole('button', { name: 'Helpful answer' })).toBeNull();
  });

  it('keeps a rating given before the resume, and pressing the pressed thumb again takes it back', async () => {
    const user = userEvent.setup();
    storeConversation({ content: 'Run it again.', status: 'complete', finish_reason: 'stop', rating: 'up' });
    const panel = await resumeStored(user);
    const up = within(conversation(panel)).getByRole('button', { name: 'Helpful answer' });
    expect(up.getAttribute('aria-pressed')).toBe('true');
    await user.click(up);
    await waitFor(() =>
      expect(server.requests.filter((request) => request.url === '/feedback').at(-1)?.body).toEqual({
        message_id: MESSAGE_ID,
        rating: null,
      }),
    );
    await waitFor(() => expect(up.getAttribute('aria-pressed')).toBe('false'));
    expect(within(conversation(panel)).queryByText('Thanks for the feedback')).toBeNull();
  });

  it('starts fresh when the reader chooses Start new over a saved conversation', async () => {
    const user = userEvent.setup();
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: CONVERSATION_ID, savedAt: '' }));
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await user.click(await within(panel).findByRole('button', { name: 'Start new' }));
    expect(within(conversation(panel)).getByText(/Ask me anything about these docs/)).toBeTruthy();
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
    expect(server.requests.some((request) => request.url.startsWith('/conversations/'))).toBe(false);
  });

  it('forgets a saved conversation the server no longer has', async () => {
    const user = userEvent.setup();
    const unknownId = '11111111-2222-4333-8444-555555555555';
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: unknownId, savedAt: '' }));
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await user.click(await within(panel).findByRole('button', { name: 'Resume last conversation' }));
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain('no longer available');
    await waitFor(() => expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull());
  });

  it('warns that an unsaved conversation cannot be resumed and does not remember it', async () => {
    const user = userEvent.setup();
    server.answerChatWith({ body: readFixture('not-persisted.sse') });
    renderWidget(testSettings(server.url));
    const panel = await openPanel(user);
    await ask(user, 'Hello?');
    await within(conversation(panel)).findByText('Answered, but not saved.');
    expect(within(panel).getByText(/not being saved right now/)).toBeTruthy();
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
  });

  describe('selection mode', () => {
    it('offers to ask about text selected in the page and sends it with mode "selection"', async () => {
      const user = userEvent.setup();
      server.answerChatWith({ body: readFixture('selection-truncated.sse') });
      renderWidget(testSettings(server.url));
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      await user.click(await screen.findByRole('button', { name: 'Ask about selection' }));
      const panel = await screen.findByRole('dialog');
      const banner = within(panel).getByRole('region', { name: 'Selection mode' });
      expect(banner.textContent).toContain(PAGE_PARAGRAPH);

      await ask(user, 'What does this mean?');
      expect(await within(conversation(panel)).findByText('The passage says retries back off exponentially.')).toBeTruthy();
      // The widget cuts selections by the server's own rule and says so in the banner: a server warning about the cut is not repeated.
      expect(within(conversation(panel)).queryByText(/only the first 2000 were used/)).toBeNull();
      expect(chatRequests().at(-1)?.body).toMatchObject({ message: 'What does this mean?', mode: 'selection', context: PAGE_PARAGRAPH });

      await user.click(within(banner).getByRole('button', { name: 'Exit selection mode' }));
      expect(within(panel).queryByRole('region', { name: 'Selection mode' })).toBeNull();
      server.answerChatWith({ body: readFixture('heartbeats.sse') });
      await ask(user, 'And in general?');
      await within(conversation(panel)).findByText('Slow but steady.');
      expect(chatRequests().at(-1)?.body).toMatchObject({ mode: 'general' });
      expect((chatRequests().at(-1)?.body as Record<string, unknown>).context).toBeUndefined();
    });

    it('enters selection mode from the keyboard shortcut while text is selected', async () => {
      const user = userEvent.setup();
      renderWidget(testSettings(server.url));
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      await screen.findByRole('button', { name: 'Ask about selection' });
      await user.keyboard('{Control>}i{/Control}');
      const panel = await screen.findByRole('dialog');
      expect(within(panel).getByRole('region', { name: 'Selection mode' }).textContent).toContain(PAGE_PARAGRAPH);
    });

    it('replaces the active selection when the reader selects other text', async () => {
      const user = userEvent.setup();
      renderWidget(testSettings(server.url));
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      await user.click(await screen.findByRole('button', { name: 'Ask about selection' }));
      const panel = await screen.findByRole('dialog');
      act(() => selectTextOf(screen.getByRole('heading', { name: 'Retries' })));
      await waitFor(() => {
        const banner = within(panel).getByRole('region', { name: 'Selection mode' });
        expect(banner.textContent).toContain('Retries');
        expect(banner.textContent).not.toContain(PAGE_PARAGRAPH);
      });
    });

    it('ignores selections outside the page content and inside the widget', async () => {
      const user = userEvent.setup();
      server.answerChatWith({ body: readFixture('heartbeats.sse') });
      renderWidget(testSettings(server.url));
      act(() => selectTextOf(screen.getByText('Navbar text that is not documentation content.')));
      const panel = await openPanel(user);
      await ask(user, 'Hi');
      const answer = await within(conversation(panel)).findByText('Slow but steady.');
      act(() => selectTextOf(answer));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(screen.queryByRole('button', { name: 'Ask about selection' })).toBeNull();
    });

    it('cuts a selection over 2,000 tokens by the same rule as the server and says so once', async () => {
      const user = userEvent.setup();
      server.answerChatWith({ body: readFixture('selection-truncated.sse') });
      renderWidget(testSettings(server.url));
      const paragraph = screen.getByTestId('page-paragraph');
      paragraph.textContent = 'word '.repeat(3000).trim();
      act(() => selectTextOf(paragraph));
      await user.click(await screen.findByRole('button', { name: 'Ask about selection' }));
      const panel = await screen.findByRole('dialog');
      // The server's token count: one token per short word.
      expect(within(panel).getByText(/about 3000 tokens; only the first 2000 are used/)).toBeTruthy();
      await ask(user, 'Summarise');
      await within(conversation(panel)).findByText('The passage says retries back off exponentially.');
      const context = (chatRequests().at(-1)?.body as { context: string }).context;
      expect(context).toBe('word '.repeat(2000).trim());
      // The server's own warning about the same cut is not shown a second time.
      expect(within(panel).getAllByText(/tokens/)).toHaveLength(1);
    });

    it('offers nothing when selection mode is switched off', async () => {
      renderWidget(testSettings(server.url, { selectionMode: false }));
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(screen.queryByRole('button', { name: 'Ask about selection' })).toBeNull();
    });
  });

  describe('on pages the site lists in hideLauncherOn', () => {
    const hiddenOnBlog = () => testSettings(server.url, { hideLauncherOn: [compileRoutePattern('/blog/**')] });

    it('shows no launcher and no selection offer there, and both again on the next docs page', async () => {
      window.history.pushState({}, '', '/blog/2026/release');
      renderWidget(hiddenOnBlog());
      expect(screen.queryByRole('button', { name: /ask the docs/i })).toBeNull();
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      // The selection is read after a short pause; let it be read before looking for the offer.
      await act(() => new Promise((resolve) => setTimeout(resolve, 300)));
      expect(screen.queryByRole('button', { name: 'Ask about selection' })).toBeNull();

      act(() => navigateForTest('/docs/intro'));
      expect(await screen.findByRole('button', { name: 'Ask the docs (Ctrl+I)' })).toBeTruthy();
      act(() => selectTextOf(screen.getByTestId('page-paragraph')));
      expect(await screen.findByRole('button', { name: 'Ask about selection' })).toBeTruthy();
    });

    it('still opens the panel from the shortcut there, and keeps an open conversation when the reader arrives', async () => {
      const user = userEvent.setup();
      server.answerChatWith({ body: readFixture('general-answer.sse') });
      renderWidget(hiddenOnBlog());
      const panel = await openPanel(user);
      await ask(user, 'How do I re-run the ingest?');
      await within(conversation(panel)).findByText(/only changed files are re-embedded/);

      act(() => navigateForTest('/blog/2026/release'));
      expect(screen.getByRole('dialog', { name: 'Ask the docs' })).toBe(panel);
      expect(within(conversation(panel)).getByText(/only changed files are re-embedded/)).toBeTruthy();
      await user.keyboard('{Escape}');
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      expect(screen.queryByRole('button', { name: /ask the docs/i })).toBeNull();

      await user.keyboard('{Control>}i{/Control}');
      const reopened = await screen.findByRole('dialog', { name: 'Ask the docs' });
      expect(within(conversation(reopened)).getByText(/only changed files are re-embedded/)).toBeTruthy();
    });
  });
});
