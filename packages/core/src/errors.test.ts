import { DocsChatError, isAbortError } from './errors.js';

describe('DocsChatError', () => {
  it('prints its hint under the message so the CLI user knows what to do', () => {
    const error = new DocsChatError('index_mismatch', 'The index was built with another embedder.', {
      hint: 'Re-ingest with --rebuild.',
    });
    expect(error.describe()).toBe('The index was built with another embedder.\n  → Re-ingest with --rebuild.');
    expect(error.retryable).toBe(false);
  });

  it('recognises aborts raised by fetch and by our own code', () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(controller.signal.reason)).toBe(true);
    expect(isAbortError(new DocsChatError('aborted', 'cancelled'))).toBe(true);
    expect(isAbortError(new Error('boom'))).toBe(false);
  });
});
