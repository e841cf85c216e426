/// <reference types="@docusaurus/module-type-aliases" />
// Ambient types of the theme components this plugin ships, for sites that
// swizzle or import them. Add to the site's tsconfig.json:
//   "compilerOptions": { "types": ["@docs-chat/docusaurus-plugin/docs-chat-theme"] }

declare module '@theme/ChatWidget' {
  import type { ReactNode } from 'react';
  export interface Props {
    /** Replaces the browser's fetch (tests, custom transports). */
    readonly fetch?: typeof fetch;
  }
  export default function ChatWidget(props?: Props): ReactNode;
}

declare module '@theme/ChatPanel' {
  import type { ReactNode } from 'react';
  import type { DocsChatSettings } from '@docs-chat/docusaurus-plugin';
  export interface Props {
    readonly open: boolean;
    /** Hides the panel; `returnFocus: false` when focus goes elsewhere (a cited section) rather than to the launcher. */
    readonly onClose: (options?: { returnFocus?: boolean }) => void;
    readonly settings: DocsChatSettings;
    readonly selection: string | null;
    readonly onExitSelection: () => void;
    /** A question asked from elsewhere (the search box's "Ask the docs about …"); asked once per `key`. */
    readonly question?: { text: string; key: number } | null;
    readonly fetch?: typeof fetch;
    /** A shared conversation (the page's `?docs-chat-share=` parameter), shown read-only instead of the reader's own. */
    readonly sharedId?: string | null;
    /** Leaves the shared conversation for the reader's own. */
    readonly onLeaveShared?: () => void;
  }
  export default function ChatPanel(props: Props): ReactNode;
}

declare module '@theme/MessageList' {
  import type { ReactNode } from 'react';
  import type { ChatMessage, FeedbackRating } from '@docs-chat/docusaurus-plugin/chat-client';
  export interface Props {
    readonly messages: readonly ChatMessage[];
    readonly welcomeMessage: string;
    readonly suggestedQuestions: readonly string[];
    readonly onAsk: (question: string) => void;
    readonly onRate: (localId: string, rating: FeedbackRating) => void;
    readonly onNavigate?: (href: string) => void;
    readonly onAskAgain?: () => void;
  }
  export default function MessageList(props: Props): ReactNode;
}

declare module '@theme/InputBox' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly onSubmit: (question: string) => void;
    readonly onStop: () => void;
    readonly streaming: boolean;
    readonly disabled?: boolean;
    readonly placeholder: string;
    readonly focusKey?: unknown;
  }
  export default function InputBox(props: Props): ReactNode;
}

declare module '@theme/SelectionMode' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly text: string;
    readonly truncated: boolean;
    readonly estimatedTokens: number;
    readonly onExit: () => void;
  }
  export default function SelectionMode(props: Props): ReactNode;
}

declare module '@theme/SourceList' {
  import type { ReactNode } from 'react';
  import type { SourceRef } from '@docs-chat/protocol';
  export interface Props {
    readonly sources: readonly SourceRef[];
    /** The citation number of each source (what `[n]` in the answer says); 1, 2, 3... when absent. */
    readonly numbers?: readonly number[];
    readonly label?: string;
    readonly onNavigate?: (href: string) => void;
  }
  export default function SourceList(props: Props): ReactNode;
}

declare module '@theme/SearchBar' {
  import type { ReactNode } from 'react';
  export interface Props {
    /** Replaces the browser's fetch (tests, custom transports). */
    readonly fetch?: typeof fetch;
  }
  export default function SearchBar(props?: Props): ReactNode;
}

declare module '@theme/SearchModal' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly open: boolean;
    /** `navigated`: a result was opened or the chat asked, so focus belongs elsewhere. */
    readonly onClose: (options?: { navigated?: boolean }) => void;
    readonly fetch?: typeof fetch;
  }
  export default function SearchModal(props: Props): ReactNode;
}

declare module '@theme/SearchResults' {
  import type { ReactNode } from 'react';
  import type { HighlightedText, SearchOption } from '@docs-chat/docusaurus-plugin/search-client';
  export type { SearchOption } from '@docs-chat/docusaurus-plugin/search-client';
  export interface Props {
    readonly id: string;
    readonly label: string;
    readonly options: readonly SearchOption[];
    readonly activeIndex: number;
    readonly onChoose: (index: number) => void;
    readonly onActivate: (index: number) => void;
  }
  export function Highlighted(props: { value: HighlightedText }): ReactNode;
  export function PathSeparator(): ReactNode;
  export function optionId(listboxId: string, index: number): string;
  export default function SearchResults(props: Props): ReactNode;
}

declare module '@theme/PanelSearch' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly active: boolean;
    readonly onAsk: (question: string) => void;
    readonly onExit: () => void;
    readonly onNavigate?: (href: string) => void;
    readonly fetch?: typeof fetch;
  }
  export default function PanelSearch(props: Props): ReactNode;
}

declare module '@theme/OfflineAnswer' {
  import type { ReactNode } from 'react';
  export interface Props {
    readonly question: string;
    readonly onRetry: () => void;
    readonly onDismiss: () => void;
    readonly onNavigate?: (href: string) => void;
    readonly fetch?: typeof fetch;
  }
  export default function OfflineAnswer(props: Props): ReactNode;
}
