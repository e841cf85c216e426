import { firstProblem, sourceRefSchema, upgradeLegacySource, type FinishReason, type SourceRef } from '@docs-chat/protocol';
import { ChatClientError, errorFromResponse, isAbortError } from './chat-errors.js';
import type { FetchFunction } from './stream-client.js';
import { isShareId } from './share-link.js';

/** One stored message as `GET /conversations/:id` returns it. */
export interface StoredConversationMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  mode: string | null;
  sources: SourceRef[];
  status: string;
  finish_reason: FinishReason | null;
  /** The reader's rating of an answer, when one was given. */
  rating?: FeedbackRating;
  created_at: string;
}

export interface StoredConversation {
  id: string;
  created_at: string;
  messages: StoredConversationMessage[];
}

async function request(fetchImpl: FetchFunction, url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw new ChatClientError('network', 'The docs-chat server could not be reached.');
  }
  if (!response.ok) throw await errorFromResponse(response);
  return response;
}

function isStoredMessage(value: unknown): value is StoredConversationMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return typeof message.id === 'string' && (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string';
}

/** The sources a reader can follow: a 1.x server's are read in its casing, malformed ones left out. */
export function readableSources(value: unknown): SourceRef[] {
  if (!Array.isArray(value)) return [];
  return value.map(upgradeLegacySource).filter((source): source is SourceRef => firstProblem(sourceRefSchema, source) === null);
}

/** Loads a conversation to resume it; a 404 rejects with kind 'not_found'. */
export async function fetchConversation(
  serverUrl: string,
  conversationId: string,
  options: { signal?: AbortSignal; fetch?: FetchFunction } = {},
): Promise<StoredConversation> {
  const response = await request(options.fetch ?? fetch, `${serverUrl}/conversations/${encodeURIComponent(conversationId)}`, {
    headers: { accept: 'application/json' },
    signal: options.signal ?? null,
  });
  const body = (await response.json()) as Partial<StoredConversation>;
  if (typeof body.id !== 'string' || !Array.isArray(body.messages)) {
    throw new ChatClientError('protocol', 'The server sent a conversation in an unexpected shape.', { retryable: false });
  }
  // System messages are never shown; anything malformed is skipped rather than breaking the resume.
  const messages = body.messages.filter(isStoredMessage).map(({ rating, ...message }) => ({
    ...message,
    sources: readableSources(message.sources),
    ...(rating === 'up' || rating === 'down' ? { rating } : {}),
  }));
  return { id: body.id, created_at: String(body.created_at ?? ''), messages };
}

export type FeedbackRating = 'up' | 'down';

/** Stores a reader's rating of an answer through `POST /feedback`; `rating: null` takes an earlier rating back. */
export async function sendFeedback(
  serverUrl: string,
  feedback: { message_id: string; rating: FeedbackRating | null; reason?: string },
  options: { fetch?: FetchFunction } = {},
): Promise<void> {
  await request(options.fetch ?? fetch, `${serverUrl}/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(feedback),
  });
}

/** Where `GET /conversations/:id/export` serves the Markdown file, with links made absolute against the docs site. */
export function exportUrl(serverUrl: string, conversationId: string, siteUrl?: string): string {
  const query = new URLSearchParams({ format: 'md' });
  if (siteUrl !== undefined) query.set('site_url', siteUrl);
  return `${serverUrl}/conversations/${encodeURIComponent(conversationId)}/export?${query.toString()}`;
}

/** Creates a read-only share of a conversation through `POST /conversations/:id/share`; resolves to the share id. */
export async function shareConversation(
  serverUrl: string,
  conversationId: string,
  options: { fetch?: FetchFunction } = {},
): Promise<string> {
  const response = await request(options.fetch ?? fetch, `${serverUrl}/conversations/${encodeURIComponent(conversationId)}/share`, {
    method: 'POST',
    headers: { accept: 'application/json' },
  });
  const body = (await response.json()) as { share_id?: unknown };
  if (typeof body.share_id !== 'string' || !isShareId(body.share_id)) {
    throw new ChatClientError('protocol', 'The server sent a share in an unexpected shape.', { retryable: false });
  }
  return body.share_id;
}

/** Deletes a conversation (and its shares) through `DELETE /conversations/:id`. */
export async function deleteConversation(
  serverUrl: string,
  conversationId: string,
  options: { fetch?: FetchFunction } = {},
): Promise<void> {
  await request(options.fetch ?? fetch, `${serverUrl}/conversations/${encodeURIComponent(conversationId)}`, {
    method: 'DELETE',
    headers: { accept: 'application/json' },
  });
}

/**
 * Loads a shared conversation through `GET /shared/:shareId`. It carries no ids, so its messages get
 * local ones and cannot be rated; a deleted or unknown share rejects with kind 'not_found'.
 */
export async function fetchSharedConversation(
  serverUrl: string,
  shareId: string,
  options: { signal?: AbortSignal; fetch?: FetchFunction } = {},
): Promise<StoredConversation> {
  const response = await request(options.fetch ?? fetch, `${serverUrl}/shared/${encodeURIComponent(shareId)}`, {
    headers: { accept: 'application/json' },
    signal: options.signal ?? null,
  });
  const body = (await response.json()) as { created_at?: unknown; messages?: unknown };
  if (!Array.isArray(body.messages)) {
    throw new ChatClientError('protocol', 'The server sent a shared conversation in an unexpected shape.', { retryable: false });
  }
  const messages = body.messages
    .map((message: unknown, index) => ({ ...(message as object), id: `shared-${index}` }))
    .filter(isStoredMessage)
    .map(({ rating: _rating, ...message }) => ({ ...message, sources: readableSources(message.sources) }));
  return { id: `shared-${shareId}`, created_at: typeof body.created_at === 'string' ? body.created_at : '', messages };
}
