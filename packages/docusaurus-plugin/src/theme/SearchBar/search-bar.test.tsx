import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import SearchBar from '@theme/SearchBar';
import ChatWidget from '@theme/ChatWidget';
import { DOCS_CHAT_PLUGIN_NAME } from '../../client-settings/docs-chat-settings.js';
import { RECENT_SEARCHES_STORAGE_KEY } from '../../search-client/recent-searches.js';
import { forgetServerFailures } from '../../search-client/search-client.js';
import { forgetLoadedIndexes } from '../../search-client/static-index-loader.js';
import { startChatTestServer, readFixture } from '../../test-doubles/chat-server.js';
import { resetSiteConfigForTest, setSiteConfigForTest } from '../../test-doubles/docusaurus/site-config.js';
import { setPluginDataForTest } from '../../test-doubles/docusaurus/use-global-data.js';
import { testSettings } from '../../test-doubles/render-widget.js';
import { startSearchTestServers, type SearchTestServers, type StaticIndexFixture } from '../../test-doubles/search-servers.js';

let servers: SearchTestServers;

async function renderSearchBar(
  options: { index?: StaticIndexFixture; serverDown?: boolean; withChat?: { url: string }; baseUrl?: string } = {},
) {
  servers = await startSearchTestServers(options.index ?? { kind: 'lighthouse' }, options.baseUrl);
  if (options.serverDown ?? true) await servers.stopServer();
  setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, testSettings(options.withChat?.url ?? servers.serverUrl));
  const fetchFromSite = servers.fetch;
  render(
    <>
      <nav>
        <SearchBar fetch={fetchFromSite} />
      </nav>
      <main>
        <h1>Introduction</h1>
        <input aria-label="A field of the page" />
      </main>
      {options.withChat && <ChatWidget />}
    </>,
  );
  return userEvent.setup();
}

function dialog(): HTMLElement {
  return screen.getByRole('dialog', { name: 'Search the docs' });
}

function searchBox(): HTMLElement {
  return within(dialog()).getByRole('combobox', { name: 'Search the docs' });
}

async function openWithShortcut(user: ReturnType<typeof userEvent.setup>): Promise<void> {
  await user.keyboard('{Control>}k{/Control}');
  await screen.findByRole('dialog', { name: 'Search the docs' });
  await waitFor(() => expect(document.activeElement).toBe(searchBox()));
}

function options(): HTMLElement[] {
  return within(dialog()).queryAllByRole('option');
}

beforeEach(() => {
  forgetServerFailures();
  forgetLoadedIndexes();
  window.history.pushState({}, '', '/handbook/docs/intro');
});

afterEach(async () => {
  await servers?.close();
  resetSiteConfigForTest();
});

describe('the navbar search', () => {
  it('opens with Ctrl+K, focus in the search box, and Escape closes it and puts focus back on the button', async () => {
    const user = await renderSearchBar();
    const button = screen.getByRole('button', { name: 'Search (Ctrl+K)' });
    expect(button.getAttribute('aria-keyshortcuts')).toBe('Control+K /');
    await openWithShortcut(user);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(button);
  });

  it('opens with / except while the reader types in a text field', async () => {
    const user = await renderSearchBar();
    await user.click(screen.getByRole('textbox', { name: 'A field of the page' }));
    await user.keyboard('/');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'A field of the page' }).value).toBe('/');
    await user.click(screen.getByRole('heading', { name: 'Introduction' }));
    await user.keyboard('/');
    expect(await screen.findByRole('dialog', { name: 'Search the docs' })).toBeTruthy();
  });

  it('shows results as the reader types, grouped by page, with the heading path and the matched words marked', async () => {
    const user = await renderSearchBar();
    await openWithShortcut(user);
    await user.type(searchBox(), 'wick');
    const page = await within(dialog()).findByRole('group', { name: 'Keeping the lamp lit' });
    expect(within(dialog()).getByRole('listbox', { name: 'Search results' }).contains(page)).toBe(true);
    const section = within(page).getByRole('option', { name: /Trimming the wick/ });
    expect([...section.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual(['wick', 'wick']);
    expect(within(dialog()).getByText('1 result')).toBeTruthy(); // the live region
    // The last row offers to ask the chat instead.
    expect(options().at(-1)?.textContent).toBe(' Ask the docs about “wick”');
  });

  it('follows the WAI-ARIA combobox pattern: the arrows move the active option, Enter opens its section', async () => {
    const user = await renderSearchBar();
    await openWithShortcut(user);
    await user.type(searchBox(), 'lens');
    await within(dialog()).findByRole('option', { name: /Cleaning the lens/ });
    const box = searchBox();
    expect(box.getAttribute('aria-expanded')).toBe('true');
    expect(box.getAttribute('aria-controls')).toBe(within(dialog()).getByRole('listbox').id);
    expect(box.getAttribute('aria-activedescendant')).toBe(options()[0]?.id);
    expect(options()[0]?.getAttribute('aria-selected')).toBe('true');
    await user.keyboard('{ArrowDown}');
    expect(box.getAttribute('aria-activedescendant')).toBe(options()[1]?.id);
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(box.getAttribute('aria-activedescendant')).toBe(options().at(-1)?.id);
    await user.keyboard('{ArrowDown}{Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(`${window.location.pathname}${window.location.hash}`).toBe('/handbook/docs/guides/lamp#cleaning-the-lens');
  });

  it('keeps recent searches in localStorage and offers them when the box is empty', async () => {
    const user = await renderSearchBar();
    await openWithShortcut(user);
    await user.type(searchBox(), 'compressor');
    await within(dialog()).findAllByRole('option', { name: /Starting the compressor/ });
    await user.keyboard('{Enter}');
    expect(JSON.parse(window.localStorage.getItem(RECENT_SEARCHES_STORAGE_KEY) ?? '[]')).toEqual(['compressor']);
    await openWithShortcut(user);
    await user.clear(searchBox());
    const recent = await within(dialog()).findByRole('listbox', { name: 'Recent searches' });
    expect(within(recent).getByRole('option', { name: 'compressor' })).toBeTruthy();
    await user.keyboard('{Enter}');
    expect((searchBox() as HTMLInputElement).value).toBe('compressor');
  });

  it('asks the chat about the query from its last row', async () => {
    const chat = await startChatTestServer();
    try {
      chat.answerChatWith({ body: readFixture('general-answer.sse') });
      const user = await renderSearchBar({ withChat: chat });
      await openWithShortcut(user);
      await user.type(searchBox(), 'how often should I trim the wick');
      const ask = await within(dialog()).findByRole('option', { name: /Ask the docs about “how often should I trim the wick”/ });
      await user.click(ask);
      expect(await screen.findByRole('dialog', { name: 'Ask the docs' })).toBeTruthy();
      await waitFor(() =>
        expect(
          chat.requests.filter((request) => request.url === '/chat').map((request) => (request.body as { message: string }).message),
        ).toEqual(['how often should I trim the wick']),
      );
    } finally {
      await chat.close();
    }
  });

  it('asks to keep typing after one letter, and finds nothing for stop words alone without failing', async () => {
    const user = await renderSearchBar();
    await openWithShortcut(user);
    await user.type(searchBox(), 'w');
    expect(within(dialog()).getByText('Keep typing…')).toBeTruthy();
    await user.clear(searchBox());
    await user.type(searchBox(), 'how do I');
    expect(await within(dialog()).findByText('No results for “how do I”.', { selector: 'p' })).toBeTruthy();
  });

  it('shows HTML typed into the box as text, never as markup', async () => {
    const user = await renderSearchBar();
    await openWithShortcut(user);
    await user.type(searchBox(), '<img src=x onerror="window.__hacked = 1"> lamp');
    await within(dialog()).findByRole('option', { name: /Ask the docs about “<img src=x onerror="window.__hacked = 1"> lamp”/ });
    expect(dialog().querySelector('img')).toBeNull();
    expect((window as unknown as { __hacked?: number }).__hacked).toBeUndefined();
  });

  it.each<[string, StaticIndexFixture]>([
    ['missing', { kind: 'missing' }],
    ['damaged', { kind: 'file', name: 'truncated-index.json' }],
  ])('says "Search is unavailable; rebuild the site." when the server is down and the index is %s', async (_case, index) => {
    const user = await renderSearchBar({ index });
    await openWithShortcut(user);
    await user.type(searchBox(), 'lamp');
    expect(await within(dialog()).findByText('Search is unavailable; rebuild the site.', { selector: 'p' })).toBeTruthy();
    // Asking the chat stays possible.
    expect(options().map((option) => option.dataset.kind)).toEqual(['ask']);
  });

  it.each<[boolean, string]>([
    [true, '/handbook/docs/guides/lamp/#trimming-the-wick'],
    [false, '/handbook/docs/guides/lamp#trimming-the-wick'],
  ])('on a site under /handbook/ with trailingSlash %s, opens a result at the URL the site links to', async (trailingSlash, expected) => {
    setSiteConfigForTest({ baseUrl: '/handbook/', trailingSlash });
    const user = await renderSearchBar({ baseUrl: '/handbook/' });
    await openWithShortcut(user);
    await user.type(searchBox(), 'trim the wick');
    await within(dialog()).findByRole('option', { name: /Trimming the wick/ });
    await user.keyboard('{Enter}');
    expect(`${window.location.pathname}${window.location.hash}`).toBe(expected);
    expect(servers.siteRequests).toContain('/handbook/docs-chat/search-manifest.json');
  });
});
