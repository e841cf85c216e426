import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import ChatWidget from '@theme/ChatWidget';
import { DOCS_CHAT_PLUGIN_NAME } from '../../client-settings/docs-chat-settings.js';
import { forgetServerFailures } from '../../search-client/search-client.js';
import { forgetLoadedIndexes } from '../../search-client/static-index-loader.js';
import { readFixture, startChatTestServer, type ChatTestServer } from '../../test-doubles/chat-server.js';
import { setPluginDataForTest } from '../../test-doubles/docusaurus/use-global-data.js';
import { testSettings } from '../../test-doubles/render-widget.js';
import { startSearchTestServers, type SearchTestServers, type StaticIndexFixture } from '../../test-doubles/search-servers.js';

let servers: SearchTestServers;
let chat: ChatTestServer | null = null;

/** The widget with the site's static index served; the chat server is `serverUrl` (a stopped one by default). */
async function renderWidget(options: { chatServer?: ChatTestServer; index?: StaticIndexFixture } = {}) {
  servers = await startSearchTestServers(options.index ?? { kind: 'lighthouse' });
  await servers.stopServer();
  setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, testSettings(options.chatServer?.url ?? servers.serverUrl));
  render(
    <>
      <main>
        <h1>Introduction</h1>
      </main>
      <ChatWidget fetch={servers.fetch} />
    </>,
  );
  const user = userEvent.setup();
  await user.click(screen.getByRole('button', { name: /ask the docs/i }));
  const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
  return { user, panel };
}

beforeEach(() => {
  forgetServerFailures();
  forgetLoadedIndexes();
  window.history.pushState({}, '', '/handbook/docs/intro');
});

afterEach(async () => {
  await servers?.close();
  await chat?.close();
  chat = null;
});

describe("the chat panel's search mode", () => {
  it('shows search results in place of the conversation, opens a section with Enter, and Escape in an empty box goes back to the chat', async () => {
    const { user, panel } = await renderWidget();
    const toggle = within(panel).getByRole('button', { name: 'Search' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await user.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(panel.dataset.mode).toBe('search');
    const box = within(panel).getByRole('combobox', { name: 'Search the docs' });
    await waitFor(() => expect(document.activeElement).toBe(box));

    await user.type(box, 'paraffin');
    const result = await within(panel).findByRole('option', { name: /Keeping the lamp lit.*paraffin/ });
    expect(result.querySelector('mark')?.textContent).toBe('paraffin');
    await user.keyboard('{Enter}');
    expect(window.location.pathname).toBe('/handbook/docs/guides/lamp');

    await user.clear(box);
    await user.keyboard('{Escape}');
    expect(panel.dataset.mode).toBe('chat');
    expect(screen.getByRole('dialog', { name: 'Ask the docs' })).toBe(panel); // Escape did not close the panel
    await waitFor(() => expect(document.activeElement).toBe(within(panel).getByRole('textbox', { name: 'Your question' })));
  });

  it('asks the chat from its last row', async () => {
    chat = await startChatTestServer();
    chat.answerChatWith({ body: readFixture('general-answer.sse') });
    const { user, panel } = await renderWidget({ chatServer: chat });
    await user.click(within(panel).getByRole('button', { name: 'Search' }));
    await user.type(within(panel).getByRole('combobox', { name: 'Search the docs' }), 'lamp schedule');
    await user.click(await within(panel).findByRole('option', { name: /Ask the docs about “lamp schedule”/ }));
    expect(panel.dataset.mode).toBe('chat');
    await waitFor(() =>
      expect(
        chat?.requests.filter((request) => request.url === '/chat').map((request) => (request.body as { message: string }).message),
      ).toEqual(['lamp schedule']),
    );
  });
});

describe('the chat panel when the assistant cannot be reached', () => {
  it('says the assistant is offline and lists the sections that match the question instead of an error', async () => {
    const { user, panel } = await renderWidget();
    await user.type(within(panel).getByRole('textbox', { name: 'Your question' }), 'How do I start the compressor?{Enter}');
    const offline = await within(panel).findByText('The assistant is offline right now. These sections of the docs match your question:');
    const answer = offline.closest('.docs-chat-offline-answer') as HTMLElement;
    const link = await within(answer).findByRole('link', { name: /^The fog signal\s*,\s*Starting the compressor$/ });
    expect(link.getAttribute('href')).toBe('/handbook/docs/guides/fog-signal#starting-the-compressor');
    expect(within(panel).queryByRole('alert')).toBeNull();
    expect(within(answer).getByRole('button', { name: 'Ask the assistant again' })).toBeTruthy();
  });

  it('says that search is unavailable too when the static index cannot be used', async () => {
    const { user, panel } = await renderWidget({ index: { kind: 'missing' } });
    await user.type(within(panel).getByRole('textbox', { name: 'Your question' }), 'How do I start the compressor?{Enter}');
    expect(
      await within(panel).findByText('The assistant is offline right now, and search is unavailable. Try again in a moment.'),
    ).toBeTruthy();
  });
});
