/**
 * Share links: a page address with the share parameter opens a shared
 * conversation read-only. Kept apart from the API client so the launcher can
 * read the address without loading it.
 */
/** The share parameter of a page address that opens a shared conversation read-only, e.g. `?docs-chat-share=<id>`. */
export const SHARE_PARAMETER = 'docs-chat-share';
const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** A share id as the server makes them: 32 base64url characters (192 random bits). */
export function isShareId(value: string): boolean {
  return SHARE_ID_PATTERN.test(value);
}

/** The share id in a page address, when it holds a well-formed one. */
export function shareIdFromLocation(search: string): string | null {
  const value = new URLSearchParams(search).get(SHARE_PARAMETER);
  return value !== null && SHARE_ID_PATTERN.test(value) ? value : null;
}

/** The address that opens a share on this page: the page itself with the share parameter (and no hash). */
export function shareLink(pageHref: string, shareId: string): string {
  const url = new URL(pageHref);
  url.hash = '';
  url.searchParams.set(SHARE_PARAMETER, shareId);
  return url.toString();
}
