import type { ComponentProps, ReactNode } from 'react';
import MDXComponents from '@theme-original/MDXComponents';

/**
 * Infima lets a wide table scroll sideways inside the article (display: block;
 * overflow: auto), which happens on phones and beside the open chat panel. A
 * region that scrolls must be reachable by keyboard (WCAG 2.1.1), so every
 * table takes focus; the arrow keys then scroll it.
 */
function KeyboardScrollableTable(props: ComponentProps<'table'>): ReactNode {
  return <table tabIndex={0} {...props} />;
}

export default {
  ...MDXComponents,
  table: KeyboardScrollableTable,
};
