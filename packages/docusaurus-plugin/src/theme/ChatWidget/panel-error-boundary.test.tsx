import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useState, type ReactNode } from 'react';
import PanelErrorBoundary from './panel-error-boundary.js';

let consoleError: jest.SpiedFunction<typeof console.error>;
beforeEach(() => {
  // React and the boundary both report the caught error; keep the test output readable.
  consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  consoleError.mockRestore();
});

// Stands for a conversation whose answer the panel cannot render.
let conversationBreaksRendering = false;
function Panel(): ReactNode {
  if (conversationBreaksRendering) throw new Error('answer renderer exploded');
  return <p>Panel content</p>;
}

function Page(): ReactNode {
  const [generation, setGeneration] = useState(0);
  return (
    <>
      <main>The page the reader is on</main>
      <PanelErrorBoundary
        fallback={(reset) => (
          <div role="alert">
            Something went wrong in the assistant.
            <button
              type="button"
              onClick={() => {
                conversationBreaksRendering = false; // a new conversation has nothing in it yet
                setGeneration((value) => value + 1);
                reset();
              }}
            >
              Start new
            </button>
          </div>
        )}
      >
        <Panel key={generation} />
      </PanelErrorBoundary>
    </>
  );
}

describe('PanelErrorBoundary', () => {
  it('replaces only the panel with its message when the panel throws while rendering, and the page stays', () => {
    conversationBreaksRendering = true;
    render(<Page />);
    expect(screen.getByRole('alert').textContent).toContain('Something went wrong in the assistant.');
    expect(screen.getByRole('main').textContent).toBe('The page the reader is on');
    expect(screen.queryByText('Panel content')).toBeNull();
    expect(
      consoleError.mock.calls.some((call: unknown[]) => String(call[0]).startsWith('docs-chat: the chat panel failed to render')),
    ).toBe(true);
  });

  it('renders the panel again from scratch when the reader chooses Start new', async () => {
    const user = userEvent.setup();
    conversationBreaksRendering = true;
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Start new' }));
    expect(screen.getByText('Panel content')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('renders its children untouched when nothing fails', () => {
    conversationBreaksRendering = false;
    render(<Page />);
    expect(screen.getByText('Panel content')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
