/**
 * @jest-environment node
 */
// Docusaurus renders every page in Node at build time: no window, no localStorage.
// Rendering Root there must work and produce the launcher, and nothing else of the widget.
import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'react-dom/server.node';
import Root from '@theme/Root';
import { DOCS_CHAT_PLUGIN_NAME } from '../../client-settings/docs-chat-settings.js';
import { setPluginDataForTest } from '../../test-doubles/docusaurus/use-global-data.js';
import { testSettings } from '../../test-doubles/render-widget.js';
import { setServerPathForTest } from '../../test-doubles/docusaurus/router.js';
import { compileRoutePattern } from '../../options.js';

describe('Root on the server', () => {
  it('renders the page and the launcher without touching browser-only APIs', () => {
    expect(typeof window).toBe('undefined');
    setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, testSettings('http://localhost:8000'));
    const html = renderToString(
      <Root>
        <main>Page content</main>
      </Root>,
    );
    expect(html).toContain('<main>Page content</main>');
    expect(html).toContain('aria-label="Ask the docs (Ctrl+I)"');
    expect(html).not.toContain('role="dialog"');
    expect(html.indexOf('Page content')).toBeLessThan(html.indexOf('Ask the docs'));
  });

  it('renders the launcher already hidden on a page listed in hideLauncherOn, so it never flashes there', () => {
    const settings = testSettings('http://localhost:8000', { hideLauncherOn: [compileRoutePattern('/')] });
    setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, settings);
    const launcherTag = (html: string) => /<button[^>]*aria-label="Ask the docs \(Ctrl\+I\)"[^>]*>/.exec(html)?.[0] ?? '';
    try {
      setServerPathForTest('/');
      expect(launcherTag(renderToString(<Root>home</Root>))).toMatch(/ hidden=""/);
      setServerPathForTest('/docs/intro');
      const docsPage = launcherTag(renderToString(<Root>docs</Root>));
      expect(docsPage).not.toBe('');
      expect(docsPage).not.toMatch(/ hidden=""/);
    } finally {
      setServerPathForTest('/');
    }
  });
});
