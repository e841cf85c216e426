import { createHash } from 'node:crypto';

/** Namespace of every docs-chat chunk id (a fixed random v4 UUID; never change it or every id moves). */
export const CHUNK_ID_NAMESPACE = '6f1c2b8e-4d3a-4f5e-9b7c-2a1d0e8f3c64';

/** RFC 4122 version 5 UUID: SHA-1 of namespace bytes + UTF-8 name, with version and variant bits set. */
export function uuidV5(name: string, namespace: string = CHUNK_ID_NAMESPACE): string {
  const namespaceHex = namespace.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(namespaceHex)) throw new TypeError(`Not a UUID: ${namespace}`);
  const digest = createHash('sha1').update(Buffer.from(namespaceHex, 'hex')).update(name, 'utf8').digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
