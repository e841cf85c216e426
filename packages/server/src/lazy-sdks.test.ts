/**
 * A server holds the SDKs of what it uses, not of every provider it could use:
 * the MCP SDK (with zod and ajv) loads with the first MCP request, and the
 * Gemini and OpenAI SDKs and the Qdrant client with the first call to those
 * providers. The child process records every module it resolves, through a
 * module hook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTestIndex, eventually, freePort, type TestIndex } from './testing/test-server.js';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

/** Package names among the modules the child resolved so far. */
async function loadedPackages(record: string): Promise<Set<string>> {
  const text = await readFile(record, 'utf8').catch(() => '');
  const names = new Set<string>();
  for (const match of text.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) names.add(match[1] as string);
  return names;
}

describe('SDKs load when they are used', () => {
  let index: TestIndex;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await index?.remove();
  });

  it('a no-key server on the embedded store starts without the MCP, Gemini, OpenAI and Qdrant clients, and answers MCP once asked', async () => {
    index = await createTestIndex();
    const record = path.join(index.dataDir, 'resolved.txt');
    const hook = path.join(index.dataDir, 'record-hook.mjs');
    const register = path.join(index.dataDir, 'register-hook.mjs');
    await writeFile(
      hook,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(record)}, result.url + '\\n');
  return result;
}
`,
    );
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
    const port = await freePort();
    let output = '';
    child = spawn(process.execPath, ['--import', register, '--import', 'tsx', CLI, 'serve'], {
      env: { PATH: process.env.PATH ?? '', ...index.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => {
      if (child?.exitCode !== null) throw new Error(`docs-chat serve exited: ${output}`);
      return output.includes('docs-chat server ready');
    }, 60_000);
    const url = `http://127.0.0.1:${port}`;

    const search = await fetch(`${url}/search?q=${encodeURIComponent('install the package')}`);
    expect(search.status).toBe(200);
    const atStart = await loadedPackages(record);
    // The recording works: the server's own dependencies are there.
    expect(atStart).toContain('fastify');
    expect(atStart).not.toContain('@modelcontextprotocol/sdk');
    expect(atStart).not.toContain('zod');
    expect(atStart).not.toContain('@google/genai');
    expect(atStart).not.toContain('openai');
    // The embedded store, not Qdrant: neither its REST client.
    expect(atStart).not.toContain('@qdrant/js-client-rest');

    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(200);
    const listed = (await mcp.json()) as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((tool) => tool.name)).toContain('search_docs');
    expect(await loadedPackages(record)).toContain('@modelcontextprotocol/sdk');
  }, 90_000);
});
