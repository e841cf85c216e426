/** The MCP endpoint's settings (MCP_TOKEN, DOCS_SITE_URL), read with the server's other variables. */

export interface McpSettings {
  /** Bearer token every `POST /mcp` must carry; the endpoint is open when unset. */
  token: string | undefined;
  /** Public address of the docs site (with its base path): MCP results carry absolute links, read_page accepts its URLs. */
  siteUrl: string | undefined;
}

export const MCP_TOKEN_MIN_LENGTH = 16;

/** Reads both variables; each problem is pushed to `problems` with the fix. */
export function readMcpSettings(read: (name: string) => string | undefined, problems: string[]): McpSettings {
  const token = read('MCP_TOKEN');
  if (token !== undefined && token.length < MCP_TOKEN_MIN_LENGTH) {
    problems.push(
      `MCP_TOKEN is too short to be safe: use at least ${MCP_TOKEN_MIN_LENGTH} random characters (e.g. the output of "openssl rand -hex 32"), or unset it to leave POST /mcp open like /search.`,
    );
  }
  const rawSiteUrl = read('DOCS_SITE_URL');
  let siteUrl: string | undefined;
  if (rawSiteUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(rawSiteUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      problems.push(
        `DOCS_SITE_URL="${rawSiteUrl}" is not valid: set it to the public address of the docs site with its base path, e.g. https://docs.example.com or https://acme.github.io/handbook/.`,
      );
    } else {
      siteUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    }
  }
  return { token, siteUrl };
}
