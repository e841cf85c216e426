import { describe, expect, it, jest } from '@jest/globals';
import { render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import type { SourceRef } from '@docs-chat/protocol';
import SourceList from '@theme/SourceList';

const sources: SourceRef[] = [
  {
    file: 'guides/ingest.md',
    title: 'Ingest',
    heading: 'Re-running',
    heading_path: ['Ingest', 'Options', 'Re-running'],
    url: '/docs/guides/ingest#re-running',
    score: 0.9,
  },
  {
    file: 'intro.md',
    title: 'Introduction',
    heading: null,
    heading_path: ['Introduction'],
    url: 'http://localhost/docs/intro',
    score: 0.5,
  },
  { file: 'x.md', title: 'Elsewhere', heading: 'Top', heading_path: [], url: 'https://other.example/docs/x#top', score: 0.4 },
];

describe('SourceList', () => {
  it('lists the sources in citation order with the page title and the section path below it', () => {
    render(<SourceList sources={sources} />);
    const list = screen.getByRole('navigation', { name: 'Sources' });
    const items = within(list).getAllByRole('listitem');
    // A comma only screen readers get keeps title and section from being read as one run of words.
    expect(items.map((item) => item.textContent)).toEqual(['1Ingest,Options › Re-running', '2Introduction', '3Elsewhere,Top']);
  });

  it('navigates with the router to the exact section, also for same-site absolute URLs', async () => {
    const onNavigate = jest.fn<() => void>();
    render(<SourceList sources={sources} onNavigate={onNavigate} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: /Ingest.*Options › Re-running/ }));
    expect(`${window.location.pathname}${window.location.hash}`).toBe('/docs/guides/ingest#re-running');
    expect(onNavigate).toHaveBeenCalledTimes(1);
    const intro = screen.getByRole('link', { name: 'Introduction' });
    expect(intro.getAttribute('href')).toBe('/docs/intro');
    expect(intro.hasAttribute('data-router-link')).toBe(true);
  });

  it('opens sources on another site in a new tab without handing it this page', () => {
    render(<SourceList sources={sources} />);
    const external = screen.getByRole('link', { name: /Elsewhere/ });
    expect(external.getAttribute('target')).toBe('_blank');
    expect(external.getAttribute('rel')).toBe('noopener noreferrer');
    expect(external.hasAttribute('data-router-link')).toBe(false);
  });

  it('renders nothing when an answer has no sources', () => {
    const { container } = render(<SourceList sources={[]} />);
    expect(container.innerHTML).toBe('');
  });

  it('names a record without a URL by its id, without a link', () => {
    const record: SourceRef = {
      file: 'records:rules/no-eval',
      title: 'No eval',
      heading: null,
      heading_path: ['No eval'],
      url: '',
      score: 0.7,
      id: 'no-eval',
    };
    render(<SourceList sources={[record]} />);
    const item = within(screen.getByRole('navigation', { name: 'Sources' })).getByRole('listitem');
    expect(item.textContent).toBe('1No evalno-eval');
    expect(within(item).queryByRole('link')).toBeNull();
  });
});
