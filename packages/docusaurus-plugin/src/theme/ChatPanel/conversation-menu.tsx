import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import styles from './styles.module.css';

export interface ConversationMenuProps {
  /** The Markdown download (`GET /conversations/:id/export`): a link, so the browser saves the file itself. */
  readonly exportHref: string;
  readonly onShare: () => void;
  readonly onDelete: () => void;
  readonly disabled?: boolean;
}

/**
 * The conversation's actions behind one menu button, following the WAI-ARIA
 * menu button pattern: Enter, Space or ArrowDown open it on the first item,
 * ArrowUp on the last; arrows, Home and End move; Escape closes it and returns
 * focus to the button; Tab closes it.
 */
export function ConversationMenu({ exportHref, onShare, onDelete, disabled = false }: ConversationMenuProps): ReactNode {
  const [open, setOpen] = useState(false);
  const [focusIndex, setFocusIndex] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemsRef = useRef<(HTMLElement | null)[]>([]);
  const menuId = useId();
  const buttonId = useId();
  const itemCount = 3;

  useEffect(() => {
    if (open) itemsRef.current[focusIndex]?.focus();
  }, [open, focusIndex]);

  const openAt = (index: number): void => {
    setFocusIndex(index);
    setOpen(true);
  };
  const close = (returnFocus: boolean): void => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };
  const choose = (action: () => void): void => {
    close(true);
    action();
  };

  const onButtonKeyDown = (event: KeyboardEvent<HTMLButtonElement>): void => {
    if (event.key === 'ArrowDown' || event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openAt(0);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(itemCount - 1);
    }
  };

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const moves: Record<string, number> = {
      ArrowDown: (focusIndex + 1) % itemCount,
      ArrowUp: (focusIndex + itemCount - 1) % itemCount,
      Home: 0,
      End: itemCount - 1,
    };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      setFocusIndex(target);
    } else if (event.key === 'Escape') {
      // Only the menu closes, not the whole panel.
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    }
  };

  const item = (index: number) => ({
    ref: (element: HTMLElement | null) => {
      itemsRef.current[index] = element;
    },
    role: 'menuitem',
    tabIndex: -1,
    className: styles.menuItem,
  });

  return (
    <div className={styles.menuWrapper}>
      <button
        ref={buttonRef}
        id={buttonId}
        type="button"
        className={styles.iconButton}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        disabled={disabled}
        onClick={() => (open ? close(true) : openAt(0))}
        onKeyDown={onButtonKeyDown}
      >
        {translate({
          id: 'docsChat.menu.button',
          message: 'Conversation',
          description: 'Button that opens the menu of conversation actions (export, share, delete)',
        })}
      </button>
      <div
        id={menuId}
        role="menu"
        aria-labelledby={buttonId}
        className={styles.menu}
        hidden={!open}
        onKeyDown={onMenuKeyDown}
        onBlur={(event) => {
          // Clicking or tabbing out of the menu closes it.
          if (open && !event.currentTarget.contains(event.relatedTarget) && event.relatedTarget !== buttonRef.current) setOpen(false);
        }}
      >
        <a {...item(0)} href={exportHref} download onClick={() => close(true)}>
          {translate({
            id: 'docsChat.menu.export',
            message: 'Export as Markdown',
            description: 'Menu item that downloads the conversation as a Markdown file',
          })}
        </a>
        <button {...item(1)} type="button" onClick={() => choose(onShare)}>
          {translate({
            id: 'docsChat.menu.share',
            message: 'Copy share link',
            description: 'Menu item that copies a read-only link to the conversation',
          })}
        </button>
        <button {...item(2)} type="button" onClick={() => choose(onDelete)}>
          {translate({
            id: 'docsChat.menu.delete',
            message: 'Delete conversation',
            description: 'Menu item that asks to delete the conversation',
          })}
        </button>
      </div>
    </div>
  );
}
