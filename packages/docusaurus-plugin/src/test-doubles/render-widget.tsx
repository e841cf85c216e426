import { render, type RenderResult } from '@testing-library/react';
import ChatWidget from '@theme/ChatWidget';
import { DOCS_CHAT_PLUGIN_NAME, type DocsChatSettings } from '../client-settings/docs-chat-settings.js';
import { setPluginDataForTest } from './docusaurus/use-global-data.js';

export const PAGE_PARAGRAPH =
  'Retries use exponential backoff with jitter, up to three attempts, and honour the RetryInfo the model sends back.';

export function testSettings(serverUrl: string, overrides: Partial<DocsChatSettings> = {}): DocsChatSettings {
  return {
    serverUrl,
    title: null,
    placeholder: null,
    welcomeMessage: null,
    suggestedQuestions: ['How do I install the plugin?', 'How does the ingest work?'],
    selectionMode: true,
    contentSelector: 'main',
    shortcut: 'mod+i',
    panel: { side: 'right', width: 420 },
    hideLauncherOn: [],
    search: { staticIndex: true },
    ...overrides,
  };
}

/** Renders a page (navbar, main content) with the widget after it, as the plugin's Root does. */
export function renderWidget(settings: DocsChatSettings): RenderResult {
  setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, settings);
  return render(
    <>
      <nav>
        <p>Navbar text that is not documentation content.</p>
      </nav>
      <main>
        <h1>Retries</h1>
        <p data-testid="page-paragraph">{PAGE_PARAGRAPH}</p>
      </main>
      <ChatWidget />
    </>,
  );
}

/** Selects the text of an element the way a reader's drag or Shift+arrows would, then lets the page react. */
export function selectTextOf(element: Element): void {
  const selection = document.getSelection();
  if (!selection) throw new Error('jsdom has no selection');
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
  document.dispatchEvent(new Event('selectionchange'));
}
