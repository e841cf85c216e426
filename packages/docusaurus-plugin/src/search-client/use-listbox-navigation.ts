/**
 * Keyboard of a combobox with a listbox popup (WAI-ARIA APG "combobox with
 * listbox popup"): focus stays in the input, ↑/↓ move the active option
 * (announced through aria-activedescendant), Enter chooses it, Escape leaves.
 */
import { useCallback, useEffect, useState, type KeyboardEvent } from 'react';

export interface ListboxNavigation {
  /** The active option, or -1 when none. */
  activeIndex: number;
  setActiveIndex: (index: number) => void;
  onKeyDown: (event: KeyboardEvent<HTMLInputElement>) => void;
}

/**
 * `resetKey` changes whenever the options change (a new query, new results):
 * the first option then becomes active, so Enter opens the best result.
 */
export function useListboxNavigation(
  optionCount: number,
  resetKey: unknown,
  handlers: { onChoose: (index: number) => void; onEscape: () => void },
): ListboxNavigation {
  const [activeIndex, setActiveIndex] = useState(optionCount > 0 ? 0 : -1);
  useEffect(() => {
    setActiveIndex(optionCount > 0 ? 0 : -1);
  }, [resetKey, optionCount]);

  const { onChoose, onEscape } = handlers;
  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLInputElement>) => {
      if (event.nativeEvent.isComposing) return; // an input method is still composing a character
      switch (event.key) {
        case 'ArrowDown':
          if (optionCount === 0) return;
          event.preventDefault();
          setActiveIndex((index) => (index + 1) % optionCount);
          break;
        case 'ArrowUp':
          if (optionCount === 0) return;
          event.preventDefault();
          setActiveIndex((index) => (index <= 0 ? optionCount - 1 : index - 1));
          break;
        case 'Enter':
          if (activeIndex < 0 || activeIndex >= optionCount) return;
          event.preventDefault();
          onChoose(activeIndex);
          break;
        case 'Escape':
          event.preventDefault();
          onEscape();
          break;
        default:
      }
    },
    [optionCount, activeIndex, onChoose, onEscape],
  );

  return { activeIndex, setActiveIndex, onKeyDown };
}
