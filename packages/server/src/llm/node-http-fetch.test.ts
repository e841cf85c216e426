import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createNodeHttpFetch } from './node-http-fetch.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

describe('the node:http fetch given to the Gemini SDK', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  const client = createNodeHttpFetch();

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => handler(request, body, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, headers and body, and returns status, headers and body as fetch does', async () => {
    handler = (request, body, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(request.headers['x-goog-api-key']) });
      response.end(JSON.stringify({ method: request.method, body }));
    };
    const response = await client.fetch(`${base}/v1beta/models/m:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k-123', 'content-type': 'application/json' },
      body: '{"contents":[]}',
    });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-echo')).toBe('k-123');
    expect(await response.json()).toEqual({ method: 'POST', body: '{"contents":[]}' });
  });

  it('streams the body as it arrives, so the first event is readable before the last is sent', async () => {
    let sendRest: () => void = () => undefined;
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
      sendRest = () => response.end('data: {"n":2}\n\n');
    };
    const response = await client.fetch(`${base}/stream`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
    sendRest();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it('decodes a gzip body, as the built-in fetch does', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync('compressed answer'));
    };
    expect(await (await client.fetch(`${base}/gzip`)).text()).toBe('compressed answer');
  });

  it('gives a 204 answer a null body instead of failing', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(204);
      response.end();
    };
    const response = await client.fetch(`${base}/empty`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('fails like fetch when nothing listens: TypeError "fetch failed" with the system code as cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await client.fetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('errors the body with "terminated" when the server cuts the response short', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    const response = await client.fetch(`${base}/cut`);
    const failure = await response.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('terminated');
  });

  it('rejects with the signal’s reason when aborted before or during the body, and closes the connection', async () => {
    let closedByClient: Promise<void> = Promise.resolve();
    handler = (request, _body, response) => {
      closedByClient = new Promise((resolve) => request.socket.once('close', () => resolve()));
      response.writeHead(200);
      response.write('first part');
    };
    const controller = new AbortController();
    const response = await client.fetch(`${base}/slow`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const reason = new Error('reader left');
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await closedByClient;

    const early = new AbortController();
    early.abort(reason);
    await expect(client.fetch(`${base}/slow`, { signal: early.signal })).rejects.toBe(reason);
  });
});
