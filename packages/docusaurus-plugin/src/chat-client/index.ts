/** The chat logic under the widget: transport, state and hooks. Knows nothing of Docusaurus. */
export { streamChat, type StreamChatOptions, type StreamOutcome, type FetchFunction } from './stream-client.js';
export {
  fetchConversation,
  sendFeedback,
  shareConversation,
  deleteConversation,
  fetchSharedConversation,
  exportUrl,
  type StoredConversation,
  type StoredConversationMessage,
  type FeedbackRating,
} from './conversation-api.js';
export { shareLink, shareIdFromLocation, isShareId, SHARE_PARAMETER } from './share-link.js';
export { useSharedConversation, type SharedConversationState } from './use-shared-conversation.js';
export { ChatClientError, type ChatErrorKind } from './chat-errors.js';
export {
  chatReducer,
  initialChatState,
  type ChatState,
  type ChatMessage,
  type ChatAction,
  type ChatErrorState,
  type SentQuestion,
} from './chat-state.js';
export { useChat, type UseChat, type UseChatOptions } from './use-chat.js';
export { useTextSelection, type PageSelection, type UseTextSelectionOptions } from './use-text-selection.js';
export { useConversationPersistence, CONVERSATION_STORAGE_KEY, type ConversationPersistence } from './use-conversation-persistence.js';
export { estimateTokens, prepareSelection, type PreparedSelection } from './token-estimate.js';
export { parseShortcut, matchesShortcut, describeShortcut, type KeyboardShortcut } from './keyboard-shortcut.js';
export { parseMarkdown, markdownToPlainText } from './markdown/parse-markdown.js';
export { parseInline, isSafeHref } from './markdown/parse-inline.js';
export type { BlockNode, InlineNode, TableAlign } from './markdown/markdown-ast.js';
export { toSiteHref } from './site-href.js';
export { citationNumbers, numberSources, type NumberedSource } from './cited-sources.js';
// Re-exported so swizzled components need no direct dependency on @docs-chat/protocol.
export { MAX_MESSAGE_CHARS, MAX_SELECTION_TOKENS } from '@docs-chat/protocol';
export type { SourceRef, ChatMode } from '@docs-chat/protocol';
export { askInChat, onAskInChat, ASK_EVENT, type AskEventDetail } from './ask-event.js';
