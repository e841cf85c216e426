/**
 * "Ask the docs about …" from anywhere in the page (the search box, or a
 * site's own button): a DOM event the chat widget listens for, so the search
 * box needs no reference to the widget. It opens the chat panel and asks.
 */

export const ASK_EVENT = 'docs-chat:ask';

export interface AskEventDetail {
  question: string;
}

/** Opens the chat panel and asks `question` there. */
export function askInChat(question: string): void {
  if (typeof window === 'undefined' || question.trim() === '') return;
  window.dispatchEvent(new CustomEvent<AskEventDetail>(ASK_EVENT, { detail: { question: question.trim() } }));
}

/** Calls `listener` for each question asked through askInChat; returns the function that stops listening. */
export function onAskInChat(listener: (question: string) => void): () => void {
  const handle = (event: Event): void => {
    const question = (event as CustomEvent<Partial<AskEventDetail>>).detail?.question;
    if (typeof question === 'string' && question.trim() !== '') listener(question.trim());
  };
  window.addEventListener(ASK_EVENT, handle);
  return () => window.removeEventListener(ASK_EVENT, handle);
}
