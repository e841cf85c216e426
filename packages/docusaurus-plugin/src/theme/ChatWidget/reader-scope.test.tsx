import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { startChatTestServer, type ChatTestServer } from '../../test-doubles/chat-server.js';
import { renderWidget, testSettings } from '../../test-doubles/render-widget.js';
import { clearPluginDataForTest, setPluginDataForTest } from '../../test-doubles/docusaurus/use-global-data.js';
import { resetSiteConfigForTest, setSiteConfigForTest } from '../../test-doubles/docusaurus/site-config.js';

// Issue 13: the widget sends the reader's docs version and locale, read from the docs plugin's global
// data and i18n.currentLocale, and marks cited pages that are not translated.

const DOCS_PLUGIN = 'docusaurus-plugin-content-docs';

let server: ChatTestServer;
beforeAll(async () => {
  server = await startChatTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  setSiteConfigForTest({ currentLocale: 'fr' });
  setPluginDataForTest(DOCS_PLUGIN, {
    default: {
      path: '/fr/docs',
      versions: [
        { name: 'current', label: 'Next', isLast: false, path: '/fr/docs/next' },
        { name: '1.0', label: '1.0', isLast: true, path: '/fr/docs' },
      ],
    },
  });
});
afterEach(() => {
  resetSiteConfigForTest();
  clearPluginDataForTest(DOCS_PLUGIN);
});

function sse(events: unknown[]): string {
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
}

const ANSWER = sse([
  {
    type: 'meta',
    conversation_id: '7f0c6a52-3f1e-4d2b-9a57-2d7f4c1e8b90',
    message_id: 'c2b1d9e4-5a6f-4b7c-8d9e-0f1a2b3c4d5e',
    mode: 'general',
    persisted: true,
  },
  {
    type: 'sources',
    scope: { version: 'current', version_label: 'Next', locale: 'fr' },
    sources: [
      {
        file: 'site:default:current:fr/export.md',
        title: 'Exporting',
        heading: null,
        heading_path: ['Exporting'],
        url: '/fr/docs/next/export',
        score: 1,
        version: 'current',
        locale: 'fr',
        fallback_locale: 'en',
      },
      {
        file: 'site:default:current:fr/cache.md',
        title: 'Cache',
        heading: null,
        heading_path: ['Cache'],
        url: '/fr/docs/next/cache',
        score: 0.9,
        version: 'current',
        locale: 'fr',
      },
    ],
  },
  { type: 'token', content: 'Use the export command [1]; the cache is set in the file [2].' },
  { type: 'done', sources: [], finish_reason: 'stop', usage: null },
]);

async function askFrom(pathname: string, question: string): Promise<HTMLElement> {
  window.history.pushState({}, '', pathname);
  const user = userEvent.setup();
  renderWidget(testSettings(server.url));
  await user.click(screen.getByRole('button', { name: /ask the docs/i }));
  const panel = await screen.findByRole('dialog', { name: 'Ask the docs' });
  await user.type(within(panel).getByRole('textbox', { name: 'Your question' }), `${question}{Enter}`);
  return panel;
}

describe("the reader's version and locale", () => {
  it('go with a question asked from a page of the current docs', async () => {
    server.answerChatWith({ body: ANSWER });
    const panel = await askFrom('/fr/docs/next/guides/setup', 'How do I export?');
    await within(panel).findByText(/Use the export command/);
    expect(server.requests.filter((request) => request.url === '/chat').at(-1)?.body).toMatchObject({
      version: 'current',
      docs_instance: 'default',
      locale: 'fr',
    });
  });

  it('name the last version on its pages, and only the locale outside the docs', async () => {
    server.answerChatWith({ body: ANSWER });
    await askFrom('/fr/docs/guides/setup', 'How do I export?');
    expect(server.requests.filter((request) => request.url === '/chat').at(-1)?.body).toMatchObject({ version: '1.0', locale: 'fr' });
    server.answerChatWith({ body: ANSWER });
    document.body.innerHTML = '';
    await askFrom('/fr/blog/launch', 'How do I export?');
    const body = server.requests.filter((request) => request.url === '/chat').at(-1)?.body as Record<string, unknown>;
    expect(body.locale).toBe('fr');
    expect(body.version).toBeUndefined();
  });

  it('mark a cited page that is not translated, and only that one', async () => {
    server.answerChatWith({ body: ANSWER });
    const panel = await askFrom('/fr/docs/next/intro', 'How do I export?');
    const sources = await within(panel).findByRole('navigation', { name: /^Sources/ });
    const untranslated = within(sources).getByRole('link', { name: /Exporting/ });
    expect(untranslated.textContent).toContain('Not translated yet: shown in its original language (en)');
    expect(within(sources).getByRole('link', { name: /Cache/ }).textContent).not.toContain('Not translated');
  });
});
