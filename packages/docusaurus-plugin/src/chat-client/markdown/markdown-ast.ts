/** The small markdown tree answers are parsed into. Text only: there is no HTML node, by design. */

export type InlineNode =
  | { type: 'text'; value: string }
  | { type: 'inlineCode'; value: string }
  | { type: 'strong'; children: InlineNode[] }
  | { type: 'emphasis'; children: InlineNode[] }
  | { type: 'delete'; children: InlineNode[] }
  | { type: 'link'; href: string; children: InlineNode[] }
  /** `[n]` in an answer: the n-th source, counted from 1. */
  | { type: 'citation'; index: number }
  | { type: 'break' };

export type TableAlign = 'left' | 'center' | 'right' | null;

export type BlockNode =
  | { type: 'paragraph'; children: InlineNode[] }
  | { type: 'heading'; depth: number; children: InlineNode[] }
  | { type: 'code'; language: string | null; value: string }
  | { type: 'list'; ordered: boolean; start: number; items: BlockNode[][] }
  | { type: 'blockquote'; children: BlockNode[] }
  | { type: 'table'; align: TableAlign[]; header: InlineNode[][]; rows: InlineNode[][][] }
  | { type: 'thematicBreak' };
