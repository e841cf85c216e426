import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { readFixture, startChatTestServer, type ChatTestServer } from '../../test-doubles/chat-server.js';
import { renderWidget, testSettings } from '../../test-doubles/render-widget.js';
import { CONVERSATION_STORAGE_KEY } from '../../chat-client/use-conversation-persistence.js';

let server: ChatTestServer;
beforeAll(async () => {
  server = await startChatTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.conversations.clear();
  server.shares.clear();
  window.localStorage.clear();
  window.history.pushState({}, '', '/docs/intro');
});

// The conversation id of the general-answer.sse fixture.
const CONVERSATION_ID = '7f0c6a52-3f1e-4d2b-9a57-2d7f4c1e8b90';
const SHARE_ID = 'Qm9va3NoZWxmLXNoYXJlLWlkLTAwMDAx';

function storedConversation(): Record<string, unknown> {
  return {
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
        id: 'c2b1d9e4-5a6f-4b7c-8d9e-0f1a2b3c4d5e',
        role: 'assistant',
        content: 'Run it again [1].',
        mode: 'general',
        sources: [{ file: 'guides/ingest.md', title: 'Ingest', heading: null, heading_path: [], url: '/docs/guides/ingest', score: 1 }],
        status: 'complete',
        finish_reason: 'stop',
        created_at: '',
      },
    ],
  };
}

/** Opens the panel, asks one question and waits for the answer, so the conversation exists on the server. */
async function answeredConversation(user: ReturnType<typeof userEvent.setup>): Promise<HTMLElement> {
  server.answerChatWith({ body: readFixture('general-answer.sse') });
  server.conversations.set(CONVERSATION_ID, storedConversation());
  renderWidget(testSettings(server.url));
  await user.click(screen.getByRole('button', { name: /ask the docs/i }));
  const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
  await user.type(within(panel).getByRole('textbox', { name: 'Your question' }), 'How do I re-run the ingest?{Enter}');
  await within(within(panel).getByRole('region', { name: 'Conversation' })).findByText(/only changed files/);
  return panel;
}

describe('the conversation menu', () => {
  it('opens from the keyboard on its first item, moves with the arrows, Home and End, and closes on Escape back to its button', async () => {
    const user = userEvent.setup();
    const panel = await answeredConversation(user);
    const button = within(panel).getByRole('button', { name: 'Conversation' });
    expect(button.getAttribute('aria-haspopup')).toBe('menu');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    button.focus();
    await user.keyboard('{Enter}');
    const menu = within(panel).getByRole('menu', { name: 'Conversation' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual(['Export as Markdown', 'Copy share link', 'Delete conversation']);
    await waitFor(() => expect(document.activeElement).toBe(items[0]));
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(items[1]);
    await user.keyboard('{End}');
    expect(document.activeElement).toBe(items[2]);
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(items[0]);
    await user.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(items[2]);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(document.activeElement).toBe(button));
    expect(button.getAttribute('aria-expanded')).toBe('false');
    // Escape closed the menu, not the panel.
    expect(screen.getByRole('dialog', { name: 'Ask the docs' })).toBeTruthy();
  });

  it('offers the Markdown export as a download of the server export, with links made absolute against this site', async () => {
    const user = userEvent.setup();
    const panel = await answeredConversation(user);
    await user.click(within(panel).getByRole('button', { name: 'Conversation' }));
    const exportLink = within(panel).getByRole('menuitem', { name: 'Export as Markdown' });
    expect(exportLink.hasAttribute('download')).toBe(true);
    expect(exportLink.getAttribute('href')).toBe(
      `${server.url}/conversations/${CONVERSATION_ID}/export?format=md&site_url=${encodeURIComponent(window.location.origin)}`,
    );
  });

  it('copies a share link to this page that carries a share id, not the conversation id, and says so', async () => {
    const user = userEvent.setup();
    const panel = await answeredConversation(user);
    await user.click(within(panel).getByRole('button', { name: 'Conversation' }));
    await user.click(within(panel).getByRole('menuitem', { name: 'Copy share link' }));
    await within(panel).findByText(/Share link copied\. Anyone with the link can read this conversation/);
    const link = await navigator.clipboard.readText();
    const [shareId] = [...server.shares.keys()];
    expect(shareId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(link).toBe(`${window.location.origin}/docs/intro?docs-chat-share=${shareId}`);
    expect(link).not.toContain(CONVERSATION_ID);
    expect(server.shares.get(shareId as string)).toBe(CONVERSATION_ID);
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('button', { name: 'Conversation' })));
  });

  it('deletes the conversation only after confirmation: Escape or Cancel keeps it, Delete removes it on the server and here', async () => {
    const user = userEvent.setup();
    const panel = await answeredConversation(user);
    const openDelete = async () => {
      await user.click(within(panel).getByRole('button', { name: 'Conversation' }));
      await user.click(within(panel).getByRole('menuitem', { name: 'Delete conversation' }));
      return within(panel).findByRole('alertdialog', { name: 'Delete this conversation?' });
    };
    let confirm = await openDelete();
    expect(confirm.getAttribute('aria-describedby')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(within(confirm).getByRole('button', { name: 'Cancel' })));
    await user.keyboard('{Escape}');
    expect(within(panel).queryByRole('alertdialog')).toBeNull();
    expect(screen.getByRole('dialog', { name: 'Ask the docs' })).toBeTruthy();
    expect(server.requests.some((request) => request.method === 'DELETE')).toBe(false);

    confirm = await openDelete();
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await within(panel).findByText('Conversation deleted.');
    expect(server.requests.filter((request) => request.method === 'DELETE').map((request) => request.url)).toEqual([
      `/conversations/${CONVERSATION_ID}`,
    ]);
    expect(server.conversations.has(CONVERSATION_ID)).toBe(false);
    const conversation = within(panel).getByRole('region', { name: 'Conversation' });
    expect(within(conversation).queryByText(/only changed files/)).toBeNull();
    expect(window.localStorage.getItem(CONVERSATION_STORAGE_KEY)).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Conversation' })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('textbox', { name: 'Your question' })));
  });
});

describe('a page opened from a share link', () => {
  it('shows the shared conversation read-only in the panel, not the reader’s own, until the reader goes back to theirs', async () => {
    const user = userEvent.setup();
    server.conversations.set(CONVERSATION_ID, storedConversation());
    server.shares.set(SHARE_ID, CONVERSATION_ID);
    // The reader has a saved conversation of their own; it must not be offered or replaced.
    window.localStorage.setItem(CONVERSATION_STORAGE_KEY, JSON.stringify({ id: 'a0000000-0000-4000-8000-00000000000a', savedAt: '' }));
    window.history.pushState({}, '', `/docs/intro?docs-chat-share=${SHARE_ID}#retries`);
    renderWidget(testSettings(server.url));

    const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
    expect(within(panel).getByText(/You are reading a conversation someone shared with you/)).toBeTruthy();
    const conversation = await within(panel).findByRole('region', { name: 'Conversation' });
    expect(await within(conversation).findByText(/Run it again/)).toBeTruthy();
    expect(within(conversation).getByText('How do I re-run the ingest?')).toBeTruthy();
    expect(within(panel).queryByRole('textbox', { name: 'Your question' })).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Helpful answer' })).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Conversation' })).toBeNull();
    expect(within(panel).queryByRole('button', { name: 'Resume last conversation' })).toBeNull();
    expect(server.requests.map((request) => request.url)).toEqual([`/shared/${SHARE_ID}`]);

    await user.click(within(panel).getByRole('button', { name: 'Back to your own conversation' }));
    expect(window.location.search).toBe('');
    expect(window.location.hash).toBe('#retries');
    expect(await within(panel).findByRole('button', { name: 'Resume last conversation' })).toBeTruthy();
    expect(within(panel).queryByText(/Run it again/)).toBeNull();
  });

  it('says a deleted share is gone and what to do', async () => {
    window.history.pushState({}, '', `/docs/intro?docs-chat-share=${SHARE_ID}`);
    renderWidget(testSettings(server.url));
    const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
    expect(await within(panel).findByRole('alert')).toHaveProperty(
      'textContent',
      'This shared conversation does not exist or was deleted. Ask whoever shared it for a new link.',
    );
  });
});
