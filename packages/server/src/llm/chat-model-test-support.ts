/** Test support: drains a chat model stream into what a reader would have seen. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ChatModel, ChatModelEvent, ChatModelRequest } from './chat-model.js';
import { LlmError } from './chat-model.js';

export interface DrainedStream {
  text: string;
  events: ChatModelEvent[];
  finish: Extract<ChatModelEvent, { type: 'finish' }> | undefined;
  error: LlmError | undefined;
}

export async function drain(stream: AsyncIterable<ChatModelEvent>, onText?: (text: string) => void): Promise<DrainedStream> {
  const events: ChatModelEvent[] = [];
  let text = '';
  try {
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'text') {
        text += event.text;
        onText?.(event.text);
      }
    }
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    return { text, events, finish: undefined, error };
  }
  const finish = events.find((event): event is Extract<ChatModelEvent, { type: 'finish' }> => event.type === 'finish');
  return { text, events, finish, error: undefined };
}

export function chatRequest(overrides: Partial<ChatModelRequest> = {}): ChatModelRequest {
  return {
    system: 'Answer only from the numbered sources.\n[1] Store setup > Middleware (/docs/store#middleware)\nMiddleware wraps dispatch.',
    messages: [{ role: 'user', content: 'How do I add middleware?' }],
    question: 'How do I add middleware?',
    sources: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function streamOf(model: ChatModel, overrides: Partial<ChatModelRequest> = {}): Promise<DrainedStream> {
  return drain(model.stream(chatRequest(overrides)));
}

/** A local port on which nothing listens (fetch refuses well-known ports such as 9, so pick a real free one). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
