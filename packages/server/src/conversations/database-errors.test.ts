import { describeDatabaseError } from './database-errors.js';

describe('database error descriptions', () => {
  it('uses the message and code of a driver error', () => {
    expect(describeDatabaseError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(
      'connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(describeDatabaseError(Object.assign(new Error('relation missing'), { code: '42P01' }))).toBe('42P01: relation missing');
  });

  it('shows what a plain object thrown by the embedded database holds instead of [object Object]', () => {
    expect(describeDatabaseError({ status: 'aborted', reason: 'out of memory' })).toBe('{"status":"aborted","reason":"out of memory"}');
    expect(describeDatabaseError({})).toBe('Object without a message');
    expect(describeDatabaseError('plain text')).toBe('plain text');
  });
});
