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
    readonly onClose: () => void;
    readonly settings: DocsChatSettings;
    readonly selection: string | null;
    readonly onExitSelection: () => void;
    readonly fetch?: typeof fetch;
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
    readonly onNavigate?: () => void;
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
  import type { SourceRef } from '@docs-chat/core/protocol';
  export interface Props {
    readonly sources: readonly SourceRef[];
    readonly onNavigate?: () => void;
  }
  export default function SourceList(props: Props): ReactNode;
}
