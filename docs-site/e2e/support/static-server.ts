import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticSite {
  /** Origin of the site, e.g. http://127.0.0.1:41234 */
  origin: string;
  close(): Promise<void>;
}

/** The file a Docusaurus build serves for a URL path: `path/index.html`, `path.html` or the file itself. */
export function resolveBuildFile(buildDir: string, urlPath: string): string | null {
  const relative = decodeURIComponent(urlPath).replace(/^\/+/, '');
  const base = path.resolve(buildDir, relative);
  if (base !== buildDir && !base.startsWith(buildDir + path.sep)) return null; // no ../ escapes
  for (const candidate of [base, path.join(base, 'index.html'), `${base.replace(/\/+$/, '')}.html`]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * Serves a Docusaurus build on 127.0.0.1 the way a static host does (clean
 * URLs, 404.html for unknown paths), without compression: enough for a browser test.
 * A site built with another baseUrl (e.g. "/handbook/") is served under that path.
 */
export async function serveStaticSite(buildDir: string, port = 0, baseUrl = '/'): Promise<StaticSite> {
  const root = path.resolve(buildDir);
  const server = http.createServer((request, response) => {
    const requested = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const urlPath = requested.startsWith(baseUrl)
      ? `/${requested.slice(baseUrl.length)}`
      : requested === baseUrl.replace(/\/$/, '')
        ? '/'
        : null;
    const file = urlPath === null ? null : resolveBuildFile(root, urlPath);
    const status = file ? 200 : 404;
    const body = file ?? path.join(root, '404.html');
    response.writeHead(status, {
      'content-type': CONTENT_TYPES[path.extname(body)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    fs.createReadStream(body).pipe(response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    origin: `http://127.0.0.1:${actualPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
