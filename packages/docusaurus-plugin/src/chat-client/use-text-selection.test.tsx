import { describe, expect, it } from '@jest/globals';
import { act, render, screen, waitFor } from '@testing-library/react';
import { useRef } from 'react';
import { useTextSelection, type UseTextSelectionOptions } from './use-text-selection.js';
import { selectTextOf } from '../test-doubles/render-widget.js';

function Probe({ enabled = true, minLength }: { enabled?: boolean; minLength?: number }) {
  const widgetRef = useRef<HTMLDivElement>(null);
  const options: UseTextSelectionOptions = { enabled, contentSelector: 'article', ignoreInside: widgetRef, debounceMs: 10 };
  if (minLength !== undefined) options.minLength = minLength;
  const { selection, clear } = useTextSelection(options);
  return (
    <>
      <aside>Sidebar link text</aside>
      <article>
        <p>First paragraph of the page.</p>
        <p>Second paragraph.</p>
        <p>ok</p>
      </article>
      <div ref={widgetRef}>
        <p>Text inside the widget</p>
        <output data-testid="selected">{selection?.text ?? 'none'}</output>
        <button type="button" onClick={clear}>
          clear
        </button>
      </div>
    </>
  );
}

const selected = () => screen.getByTestId('selected').textContent;

describe('useTextSelection', () => {
  it('reports text selected in the page content', async () => {
    render(<Probe />);
    act(() => selectTextOf(screen.getByText('First paragraph of the page.', { selector: 'p' })));
    await waitFor(() => expect(selected()).toBe('First paragraph of the page.'));
  });

  it('follows a selection extended with the keyboard (a new selectionchange)', async () => {
    render(<Probe />);
    act(() => selectTextOf(screen.getByText('First paragraph of the page.', { selector: 'p' })));
    await waitFor(() => expect(selected()).toBe('First paragraph of the page.'));
    act(() => {
      const range = document.createRange();
      range.setStart(screen.getByText('First paragraph of the page.', { selector: 'p' }).firstChild as Node, 0);
      range.setEnd(screen.getByText('Second paragraph.', { selector: 'p' }).firstChild as Node, 6);
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      document.dispatchEvent(new KeyboardEvent('keyup', { key: 'ArrowDown', shiftKey: true }));
    });
    await waitFor(() => expect(selected()).toMatch(/^First paragraph of the page\.\s*Second$/));
  });

  it('ignores selections outside the content and inside the widget', async () => {
    render(<Probe />);
    act(() => selectTextOf(screen.getByText('Sidebar link text')));
    act(() => selectTextOf(screen.getByText('Text inside the widget')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(selected()).toBe('none');
  });

  it('ignores selections shorter than the minimum', async () => {
    render(<Probe />);
    act(() => selectTextOf(screen.getByText('ok')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(selected()).toBe('none');
  });

  it('forgets the selection when it collapses', async () => {
    render(<Probe />);
    act(() => selectTextOf(screen.getByText('Second paragraph.', { selector: 'p' })));
    await waitFor(() => expect(selected()).toBe('Second paragraph.'));
    act(() => {
      document.getSelection()?.removeAllRanges();
      document.dispatchEvent(new Event('selectionchange'));
    });
    await waitFor(() => expect(selected()).toBe('none'));
  });

  it('reports nothing while disabled', async () => {
    render(<Probe enabled={false} />);
    act(() => selectTextOf(screen.getByText('First paragraph of the page.', { selector: 'p' })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(selected()).toBe('none');
  });
});
