/** Outcome of reading a docs file: its text, or a reason an admin can act on. */
export type DecodedSource = { ok: true; text: string } | { ok: false; reason: string };

// Only the first bytes are probed for NUL: binary formats show one early, and
// a text file never contains one, so a short probe is enough and stays cheap.
const BINARY_PROBE_BYTES = 8000;

/**
 * Turns the bytes of a docs file into text. Binary files (NUL bytes) and
 * files that are not valid UTF-8 are refused with a reason; a UTF-8 byte
 * order mark is removed so it never leaks into front matter or headings.
 */
export function decodeSourceFile(bytes: Uint8Array): DecodedSource {
  const probeEnd = Math.min(bytes.length, BINARY_PROBE_BYTES);
  for (let index = 0; index < probeEnd; index++) {
    if (bytes[index] === 0) {
      return {
        ok: false,
        reason: `looks like a binary file (NUL byte at offset ${index}); keep only .md/.mdx text files in the docs folder or exclude this one`,
      };
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      reason: `is not valid UTF-8 (byte ${firstInvalidUtf8Offset(bytes)}); re-save the file as UTF-8`,
    };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { ok: true, text };
}

/** Offset of the first byte that breaks UTF-8, so the admin can find it in an editor. */
function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    const length =
      lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
    if (length === 0 || index + length > bytes.length) return index;
    for (let next = 1; next < length; next++) {
      if (((bytes[index + next] ?? 0) & 0xc0) !== 0x80) return index;
    }
    // Overlong 3-byte forms, UTF-16 surrogates and code points past U+10FFFF are invalid too.
    if (length === 3) {
      const second = bytes[index + 1] ?? 0;
      if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second >= 0xa0)) return index;
    }
    if (length === 4) {
      const second = bytes[index + 1] ?? 0;
      if ((lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second >= 0x90)) return index;
    }
    index += length;
  }
  return bytes.length;
}
