import { afterEach } from '@jest/globals';
import { cleanup } from '@testing-library/react';

// React Testing Library unmounts automatically only when `afterEach` is global; in ESM mode it is not.
afterEach(() => {
  // Server-rendering tests run in the node environment, without a DOM.
  if (typeof window === 'undefined') return;
  cleanup();
  window.localStorage.clear();
  document.getSelection()?.removeAllRanges();
});
