/**
 * Security checks: CORS allowlist, the rate limit, the admin token, answers
 * holding HTML, and what the logs hold.
 */
import type { BlockNode, InlineNode } from '../../../packages/docusaurus-plugin/src/chat-client/markdown/markdown-ast.js';
import { parseMarkdown } from '../../../packages/docusaurus-plugin/src/chat-client/markdown/parse-markdown.js';
import { toSiteHref } from '../../../packages/docusaurus-plugin/src/chat-client/site-href.js';
import { expectThat, type SuiteReport } from './report.js';
import { askToEnd } from './chat-client.js';
import type { ServerProcess } from './processes.js';
import { chatBody, MODEL_QUESTIONS, type SuiteContext } from './suite-context.js';

const ALLOWED_ORIGIN = 'http://localhost:3000';
const FOREIGN_ORIGIN = 'https://evil.example';

export async function runCorsAndAdminChecks(context: SuiteContext, withoutAdmin: ServerProcess): Promise<void> {
  const { report, main } = context;
  await report.check(
    'security',
    `a preflight from ${FOREIGN_ORIGIN} is refused (403, no access-control-allow-origin) while ${ALLOWED_ORIGIN} is allowed`,
    async () => {
      const preflight = (origin: string) =>
        fetch(`${main.url}/chat`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
      const foreign = await preflight(FOREIGN_ORIGIN);
      await foreign.arrayBuffer();
      expectThat(
        foreign.headers.get('access-control-allow-origin') === null,
        `foreign preflight got access-control-allow-origin ${foreign.headers.get('access-control-allow-origin')}`,
      );
      expectThat(foreign.status === 403, `foreign preflight answered ${foreign.status}`);
      const allowed = await preflight(ALLOWED_ORIGIN);
      await allowed.arrayBuffer();
      expectThat(
        allowed.headers.get('access-control-allow-origin') === ALLOWED_ORIGIN,
        `allowed preflight got ${allowed.headers.get('access-control-allow-origin')}`,
      );
      return `foreign ${foreign.status}, allowed ${allowed.status}`;
    },
  );

  await report.check(
    'security',
    `a POST /chat from ${FOREIGN_ORIGIN} is refused with 403 origin_not_allowed before any answer, without access-control-allow-origin`,
    async () => {
      const before = context.gemini.requests.length;
      const response = await fetch(`${main.url}/chat`, {
        method: 'POST',
        headers: { origin: FOREIGN_ORIGIN, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(chatBody('How do I install Tidewater?')),
      });
      const body = (await response.json()) as { error?: { code?: string; message?: string } };
      expectThat(
        response.status === 403 && body.error?.code === 'origin_not_allowed',
        `HTTP ${response.status} ${JSON.stringify(body).slice(0, 120)}`,
      );
      expectThat(response.headers.get('access-control-allow-origin') === null, 'the refusal carries access-control-allow-origin');
      expectThat(context.gemini.requests.length === before, 'the model was called for a refused origin');
      return `"${body.error.message}"`;
    },
  );

  await report.check(
    'security',
    'POST /admin/ingest without a token and with a wrong token gets 401 with a message, and runs nothing',
    async () => {
      const noToken = await fetch(`${main.url}/admin/ingest`, { method: 'POST' });
      const wrong = await fetch(`${main.url}/admin/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.adminToken.slice(0, -1)}x` },
      });
      const notBearer = await fetch(`${main.url}/admin/ingest`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`admin:${context.adminToken}`).toString('base64')}` },
      });
      const bodies = await Promise.all(
        [noToken, wrong, notBearer].map(async (response) => ({
          status: response.status,
          body: (await response.json()) as { error?: { code?: string; message?: string } },
        })),
      );
      for (const { status, body } of bodies)
        expectThat(
          status === 401 && body.error?.code === 'unauthorized' && (body.error.message ?? '').includes('ADMIN_TOKEN'),
          `HTTP ${status} ${JSON.stringify(body).slice(0, 120)}`,
        );
      return bodies.map((entry) => entry.status).join(', ');
    },
  );

  await report.check('security', 'POST /admin/ingest does not exist (404) on a server without ADMIN_TOKEN, even with a token', async () => {
    const response = await fetch(`${withoutAdmin.url}/admin/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context.adminToken}` },
    });
    const body = (await response.json()) as { error?: { code?: string } };
    expectThat(response.status === 404 && body.error?.code === 'route_not_found', `HTTP ${response.status} ${JSON.stringify(body)}`);
  });
}

export async function runRateLimitCheck(report: SuiteReport, limited: ServerProcess, max: number): Promise<void> {
  await report.check(
    'security',
    `with RATE_LIMIT_MAX=${max}, request ${max + 1} and later from one address get 429 rate_limited with a clear message and retry-after`,
    async () => {
      const statuses: number[] = [];
      let refusal: { message: string; retryAfter: string | null } | undefined;
      for (let index = 0; index < max + 3; index += 1) {
        const response = await fetch(`${limited.url}/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(chatBody('Hello!')),
        });
        statuses.push(response.status);
        const body = (await response.json()) as { error?: { code?: string; message?: string } };
        if (response.status === 429) {
          expectThat(body.error?.code === 'rate_limited', `429 body ${JSON.stringify(body)}`);
          refusal = { message: body.error.message ?? '', retryAfter: response.headers.get('retry-after') };
        }
      }
      const expected = [...Array<number>(max).fill(200), 429, 429, 429].join(',');
      expectThat(statuses.join(',') === expected, `statuses ${statuses.join(',')} instead of ${expected}`);
      expectThat(
        refusal && /Too many requests/.test(refusal.message) && /^\d+$/.test(refusal.retryAfter ?? ''),
        `refusal ${JSON.stringify(refusal)}`,
      );
      return `"${refusal.message}", retry-after ${refusal.retryAfter} s`;
    },
  );
}

function inlineNodes(blocks: BlockNode[]): InlineNode[] {
  const inlines: InlineNode[] = [];
  const visitInline = (nodes: InlineNode[]): void => {
    for (const node of nodes) {
      inlines.push(node);
      if ('children' in node) visitInline(node.children);
    }
  };
  for (const block of blocks) {
    if (block.type === 'paragraph' || block.type === 'heading') visitInline(block.children);
    else if (block.type === 'blockquote') inlines.push(...inlineNodes(block.children));
    else if (block.type === 'list') for (const item of block.items) inlines.push(...inlineNodes(item));
    else if (block.type === 'table') for (const row of [block.header, ...block.rows]) for (const cell of row) visitInline(cell);
  }
  return inlines;
}

export async function runHtmlAnswerCheck(context: SuiteContext): Promise<void> {
  const { report, main, gemini } = context;
  await report.check(
    'security',
    "an answer holding HTML reaches the reader as JSON text, and the widget's markdown parser turns it into text nodes only (no element, no javascript: link); the browser check is docs-site/e2e 'HTML in an answer is shown as text and never executed'",
    async () => {
      const hostile =
        'See <img src=x onerror="alert(1)"> and <script>alert(2)</script> or [click](javascript:alert(3)) <a href="javascript:alert(4)">here</a> [1].';
      gemini.reset();
      gemini.setReply(hostile);
      try {
        const reply = await askToEnd(main.url, chatBody(MODEL_QUESTIONS[0]));
        expectThat(reply.contentType.startsWith('text/event-stream'), `content-type ${reply.contentType}`);
        expectThat(reply.text() === hostile, 'the answer text was altered on the way');
        const inlines = inlineNodes(parseMarkdown(reply.text()));
        const links = inlines.filter((node): node is Extract<InlineNode, { type: 'link' }> => node.type === 'link');
        expectThat(
          links.every((link) => !/^\s*javascript:/i.test(link.href)),
          `a javascript: link survived: ${links.map((link) => link.href).join(', ')}`,
        );
        const text = inlines.map((node) => (node.type === 'text' ? node.value : '')).join('');
        expectThat(text.includes('<script>') && text.includes('<img'), 'the HTML did not stay visible as text');
        return `${inlines.length} inline nodes, ${links.length} links, HTML kept as text`;
      } finally {
        gemini.reset();
      }
    },
  );

  await report.check(
    'security',
    "backslash links: an answer linking to /\\evil.example, //evil.example or /<tab>/evil.example is classified external by the widget's own link rule, in the browser and while rendering on the server; the browser check is docs-site/e2e 'links in an answer that leave the site are external'",
    async () => {
      const hostile =
        'See [m](/\\evil.example), [p](//evil.example/page), [t](/\t/evil.example) and [b](\\\\evil.example), but [the intro](/docs/intro) [1].';
      gemini.reset();
      gemini.setReply(hostile);
      try {
        const reply = await askToEnd(main.url, chatBody(MODEL_QUESTIONS[0]));
        const links = inlineNodes(parseMarkdown(reply.text())).filter(
          (node): node is Extract<InlineNode, { type: 'link' }> => node.type === 'link',
        );
        const hostileLinks = links.filter((link) => link.href !== '/docs/intro');
        expectThat(
          links.some((link) => link.href === '/docs/intro'),
          'the ordinary site link was lost',
        );
        // While Docusaurus renders on the server there is no window; in the browser the page's location decides.
        const classify = (href: string, location: string | null): boolean => {
          const scope = globalThis as { window?: unknown };
          const saved = scope.window;
          if (location) scope.window = { location: new URL(location) };
          else delete scope.window;
          try {
            return toSiteHref(href).internal;
          } finally {
            if (saved === undefined) delete scope.window;
            else scope.window = saved;
          }
        };
        // Wrong: a link the widget would follow as a same-site router link that the browser resolves to another host.
        const site = 'http://localhost:3000/docs/intro';
        const leavesSite = (href: string): boolean => new URL(href, site).host !== new URL(site).host;
        const takenInternal = hostileLinks.flatMap((link) =>
          [null, site]
            .filter((location) => classify(link.href, location) && leavesSite(link.href))
            .map((location) => `${JSON.stringify(link.href)} (${location ?? 'server render'})`),
        );
        expectThat(takenInternal.length === 0, `links to another host taken for internal links: ${takenInternal.join(', ')}`);
        expectThat(
          hostileLinks.some((link) => link.href === '/\\evil.example'),
          `the backslash link did not reach the parser as a link: ${hostileLinks.map((link) => link.href).join(', ')}`,
        );
        expectThat(classify('/docs/intro', null) && classify('/docs/intro', site), 'a plain site path is no longer internal');
        return `links to another host, all external: ${hostileLinks
          .filter((link) => leavesSite(link.href))
          .map((link) => JSON.stringify(link.href))
          .join(', ')}; the site links internal`;
      } finally {
        gemini.reset();
      }
    },
  );
}

export async function runLogChecks(context: SuiteContext): Promise<void> {
  const { report, main, gemini } = context;
  const logs = main.stdout();
  await report.check('security', 'the logs at the default level are JSON lines with a request id', async () => {
    const lines = logs.split('\n').filter((line) => line.trim().length > 0);
    expectThat(lines.length > 20, `only ${lines.length} log lines`);
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return null;
      }
    });
    expectThat(
      parsed.every((entry) => entry !== null),
      'a log line is not JSON',
    );
    expectThat(
      parsed.some((entry) => typeof entry?.requestId === 'string'),
      'no line carries a requestId',
    );
    return `${lines.length} lines`;
  });
  await report.check(
    'security',
    `the logs at the default level hold none of the ${context.sent.size} questions sent, neither the model API key nor the admin token`,
    async () => {
      const all = logs + main.stderr();
      const quoted = [...context.sent].filter(
        (message) => message.length >= 16 && (all.includes(message) || all.includes(JSON.stringify(message).slice(1, -1))),
      );
      expectThat(quoted.length === 0, `${quoted.length} questions appear in the logs, e.g. ${JSON.stringify(quoted[0])}`);
      expectThat(!all.includes(gemini.apiKey), 'the API key appears in the logs');
      expectThat(!all.includes(context.adminToken), 'the admin token appears in the logs');
      return `${all.length} bytes of logs searched`;
    },
  );
}
