import { Fragment, type ReactNode } from 'react';
import Link from '@docusaurus/Link';
import CodeBlock from '@theme/CodeBlock';
import { translate } from '@docusaurus/Translate';
import type { SourceRef } from '@docs-chat/protocol';
import type { NumberedSource } from '../../chat-client/cited-sources.js';
import type { BlockNode, InlineNode } from '../../chat-client/markdown/markdown-ast.js';
import { parseMarkdown } from '../../chat-client/markdown/parse-markdown.js';
import { toSiteHref } from '../../chat-client/site-href.js';
import hidden from '../../theme-support/visually-hidden.module.css';
import PageColorModeProvider from './page-color-mode.js';

/*
 * Renders an answer's markdown as React elements. Every string ends up as a
 * text node, so HTML in an answer is shown, never run; code blocks go through
 * the site's own CodeBlock (its highlighting and copy button).
 */

interface RenderContext {
  /** The source each citation number points to. */
  citations: ReadonlyMap<number, SourceRef>;
  onNavigate?: ((href: string) => void) | undefined;
}

function SafeLink({
  href,
  children,
  onNavigate,
}: {
  href: string;
  children: ReactNode;
  onNavigate?: ((href: string) => void) | undefined;
}): ReactNode {
  const target = toSiteHref(href);
  if (target.internal) {
    return (
      <Link to={target.href} onClick={() => onNavigate?.(target.href)}>
        {children}
      </Link>
    );
  }
  return (
    <a href={target.href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

function Citation({ index, context }: { index: number; context: RenderContext }): ReactNode {
  const source = context.citations.get(index);
  if (!source) return `[${index}]`;
  const label = translate(
    {
      id: 'docsChat.citation.label',
      message: 'Source {number}: {title}',
      description: 'Accessible name of a [n] citation link in an answer',
    },
    { number: String(index), title: source.heading ? `${source.title}, ${source.heading}` : source.title },
  );
  return (
    <sup className="docs-chat-citation">
      <SafeLink href={source.url} onNavigate={context.onNavigate}>
        <span aria-hidden="true">[{index}]</span>
        <span className={hidden.visuallyHidden}>{label}</span>
      </SafeLink>
    </sup>
  );
}

function renderInline(nodes: InlineNode[], context: RenderContext): ReactNode[] {
  return nodes.map((node, key) => {
    switch (node.type) {
      case 'text':
        return <Fragment key={key}>{node.value}</Fragment>;
      case 'inlineCode':
        return <code key={key}>{node.value}</code>;
      case 'strong':
        return <strong key={key}>{renderInline(node.children, context)}</strong>;
      case 'emphasis':
        return <em key={key}>{renderInline(node.children, context)}</em>;
      case 'delete':
        return <del key={key}>{renderInline(node.children, context)}</del>;
      case 'link':
        return (
          <SafeLink key={key} href={node.href} onNavigate={context.onNavigate}>
            {renderInline(node.children, context)}
          </SafeLink>
        );
      case 'citation':
        return <Citation key={key} index={node.index} context={context} />;
      case 'break':
        return <br key={key} />;
    }
  });
}

function renderBlocks(blocks: BlockNode[], context: RenderContext): ReactNode[] {
  return blocks.map((block, key) => {
    switch (block.type) {
      case 'paragraph':
        return <p key={key}>{renderInline(block.children, context)}</p>;
      case 'heading': {
        // The panel title is an h2, so answer headings start below it.
        const Tag = `h${Math.min(block.depth + 2, 6)}` as 'h3' | 'h4' | 'h5' | 'h6';
        return <Tag key={key}>{renderInline(block.children, context)}</Tag>;
      }
      case 'code':
        // The widget sits above the theme's own ColorModeProvider (see page-color-mode.tsx).
        return (
          <PageColorModeProvider key={key}>
            <CodeBlock {...(block.language ? { language: block.language } : {})}>{block.value}</CodeBlock>
          </PageColorModeProvider>
        );
      case 'list': {
        const items = block.items.map((item, index) => <li key={index}>{renderBlocks(item, context)}</li>);
        return block.ordered ? (
          <ol key={key} start={block.start === 1 ? undefined : block.start}>
            {items}
          </ol>
        ) : (
          <ul key={key}>{items}</ul>
        );
      }
      case 'blockquote':
        return <blockquote key={key}>{renderBlocks(block.children, context)}</blockquote>;
      case 'table':
        return (
          // Focusable: a region that scrolls sideways must be reachable by keyboard (WCAG 2.1.1).
          <div key={key} className="docs-chat-table-scroll" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  {block.header.map((cell, column) => (
                    <th key={column} style={block.align[column] ? { textAlign: block.align[column] } : undefined}>
                      <span className="docs-chat-cell">{renderInline(cell, context)}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {block.rows.map((row, rowIndex) => (
                  <tr key={rowIndex}>
                    {row.map((cell, column) => (
                      <td key={column} style={block.align[column] ? { textAlign: block.align[column] } : undefined}>
                        <span className="docs-chat-cell">{renderInline(cell, context)}</span>
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      case 'thematicBreak':
        return <hr key={key} />;
    }
  });
}

export interface MarkdownViewProps {
  markdown: string;
  /** The answer's sources with the numbers its citations use. */
  sources: readonly NumberedSource[];
  /** Called with the link's target when the reader follows it (the panel may close itself on phones). */
  onNavigate?: (href: string) => void;
}

export default function MarkdownView({ markdown, sources, onNavigate }: MarkdownViewProps): ReactNode {
  const citations = new Map(sources.map((entry) => [entry.number, entry.source]));
  return <>{renderBlocks(parseMarkdown(markdown), { citations, onNavigate })}</>;
}
