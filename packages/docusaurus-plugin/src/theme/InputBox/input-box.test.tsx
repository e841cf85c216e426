import { describe, expect, it, jest } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import InputBox from '@theme/InputBox';

function setup(props: Partial<Parameters<typeof InputBox>[0]> = {}) {
  const onSubmit = jest.fn<(question: string) => void>();
  const onStop = jest.fn<() => void>();
  render(<InputBox onSubmit={onSubmit} onStop={onStop} streaming={false} placeholder="Ask a question about the docs…" {...props} />);
  return { onSubmit, onStop, textbox: screen.getByRole('textbox', { name: 'Your question' }) };
}

describe('InputBox', () => {
  it('sends the trimmed question on Enter and clears itself', async () => {
    const user = userEvent.setup();
    const { onSubmit, textbox } = setup();
    await user.type(textbox, '  How do I deploy?  {Enter}');
    expect(onSubmit).toHaveBeenCalledWith('How do I deploy?');
    expect((textbox as HTMLTextAreaElement).value).toBe('');
  });

  it('adds a new line on Shift+Enter instead of sending', async () => {
    const user = userEvent.setup();
    const { onSubmit, textbox } = setup();
    await user.type(textbox, 'first line{Shift>}{Enter}{/Shift}second line');
    expect(onSubmit).not.toHaveBeenCalled();
    expect((textbox as HTMLTextAreaElement).value).toBe('first line\nsecond line');
  });

  it('does not send an empty question and keeps the send button disabled', async () => {
    const user = userEvent.setup();
    const { onSubmit, textbox } = setup();
    await user.type(textbox, '   {Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send question' }).hasAttribute('disabled')).toBe(true);
  });

  it('sends with the send button too', async () => {
    const user = userEvent.setup();
    const { onSubmit, textbox } = setup();
    await user.type(textbox, 'Where are the logs?');
    await user.click(screen.getByRole('button', { name: 'Send question' }));
    expect(onSubmit).toHaveBeenCalledWith('Where are the logs?');
    expect(document.activeElement).toBe(textbox);
  });

  it('offers Stop generating while an answer streams and keeps focus in the box after stopping', async () => {
    const user = userEvent.setup();
    const { onStop, onSubmit, textbox } = setup({ streaming: true });
    await user.type(textbox, 'next question{Enter}');
    expect(onSubmit).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Stop generating' }));
    expect(onStop).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(textbox);
  });

  it('describes the keyboard behaviour to screen readers and shows the placeholder', () => {
    const { textbox } = setup();
    const hintId = textbox.getAttribute('aria-describedby') ?? '';
    expect(document.getElementById(hintId)?.textContent).toBe('Press Enter to send, Shift+Enter for a new line.');
    expect(textbox.getAttribute('placeholder')).toBe('Ask a question about the docs…');
  });

  it('counts characters when a question nears the limit', async () => {
    const user = userEvent.setup();
    const { textbox } = setup();
    await user.click(textbox);
    await user.paste('x'.repeat(3600));
    expect(screen.getByText('3600 of 4000 characters')).toBeTruthy();
  });
});
