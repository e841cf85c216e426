import { decodeSourceFile } from './decode-source.js';

describe('decodeSourceFile', () => {
  it('returns the text of a UTF-8 file without its byte order mark', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('# Café\n')]);
    expect(decodeSourceFile(bytes)).toEqual({ ok: true, text: '# Café\n' });
  });

  it('refuses a binary file and says it looks binary', () => {
    const result = decodeSourceFile(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/binary file \(NUL byte at offset 4\)/);
  });

  it('refuses a Latin-1 file and points at the first bad byte so it can be re-saved as UTF-8', () => {
    const result = decodeSourceFile(new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x0a]));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe('is not valid UTF-8 (byte 3); re-save the file as UTF-8');
  });

  it('accepts an empty file as empty text', () => {
    expect(decodeSourceFile(new Uint8Array())).toEqual({ ok: true, text: '' });
  });
});
