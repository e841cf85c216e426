import { describe, expect, it, jest } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import SelectionMode from '@theme/SelectionMode';

describe('SelectionMode', () => {
  it('names itself "Selection mode", in sentence case like the rest of the widget, and previews the selected passage', () => {
    render(<SelectionMode text="Retries back off exponentially." truncated={false} estimatedTokens={8} onExit={() => undefined} />);
    const banner = screen.getByRole('region', { name: 'Selection mode' });
    expect(banner.textContent).toContain('Retries back off exponentially.');
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('shortens a long preview with an ellipsis', () => {
    render(<SelectionMode text={'a'.repeat(1000)} truncated={false} estimatedTokens={250} onExit={() => undefined} />);
    const preview = screen.getByRole('region', { name: 'Selection mode' }).querySelector('blockquote');
    expect(preview?.textContent?.endsWith('…')).toBe(true);
    expect(preview?.textContent?.length).toBeLessThan(300);
  });

  it('warns when the selection was cut to the token budget', () => {
    render(<SelectionMode text="cut text" truncated estimatedTokens={3750} onExit={() => undefined} />);
    expect(screen.getByRole('status').textContent).toBe(
      'The selection is about 3750 tokens; only the first 2000 are used. Select a shorter passage to ask about all of it.',
    );
  });

  it('leaves selection mode with the "Exit selection mode" button', async () => {
    const onExit = jest.fn<() => void>();
    render(<SelectionMode text="passage" truncated={false} estimatedTokens={2} onExit={onExit} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Exit selection mode' }));
    expect(onExit).toHaveBeenCalledTimes(1);
  });
});
