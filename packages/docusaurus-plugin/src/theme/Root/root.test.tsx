import { describe, expect, it } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import Root from '@theme/Root';
import { DOCS_CHAT_PLUGIN_NAME } from '../../client-settings/docs-chat-settings.js';
import { setPluginDataForTest } from '../../test-doubles/docusaurus/use-global-data.js';
import { testSettings } from '../../test-doubles/render-widget.js';

// What a site's own swizzled Root does: wrap the plugin's Root (imported as @theme-original/Root).
function SiteRoot({ children }: { children: ReactNode }) {
  return (
    <div data-testid="site-provider">
      <Root>{children}</Root>
    </div>
  );
}

describe('Root', () => {
  it('renders the page first and the launcher after it, so the launcher comes last in the Tab order', () => {
    setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, testSettings('http://localhost:8000'));
    render(
      <Root>
        <a href="/docs/intro">Last link of the page</a>
      </Root>,
    );
    const pageLink = screen.getByRole('link', { name: 'Last link of the page' });
    const launcher = screen.getByRole('button', { name: /Ask the docs/ });
    expect(pageLink.compareDocumentPosition(launcher) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('can itself be wrapped by the site', () => {
    setPluginDataForTest(DOCS_CHAT_PLUGIN_NAME, testSettings('http://localhost:8000'));
    render(
      <SiteRoot>
        <p>Page</p>
      </SiteRoot>,
    );
    const provider = screen.getByTestId('site-provider');
    expect(provider.textContent).toContain('Page');
    expect(provider.querySelector('.docs-chat-launcher')).not.toBeNull();
  });
});
