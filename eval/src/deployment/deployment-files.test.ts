/**
 * No Docker engine runs where these tests run: they check docker-compose.yml, the Dockerfile,
 * .dockerignore and .env.example for what would break a `docker compose up` on a fresh clone,
 * and run the health-check commands themselves against local HTTP servers.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startQdrantStandIn } from '@docs-chat/stand-ins';
import { parse } from 'yaml';
import {
  REPO_ROOT,
  envExampleVariables,
  interpolateDefaults,
  interpolatedVariables,
  isExcludedByDockerignore,
  parseDockerfile,
  readComposeFile,
  readRepoFile,
  variablesReadBySource,
  type ComposeBuild,
  type ComposeService,
} from './deployment-files.js';

const compose = readComposeFile();
const services = compose.services;
const dockerfile = parseDockerfile(readRepoFile('Dockerfile'));
const rootPackage = JSON.parse(readRepoFile('package.json')) as { packageManager: string };
/** Where the server image's npm install puts the `docs-chat` command (the server package's bin shim). */
const INSTALLED_BIN = '/app/node_modules/@docs-chat/server/bin/docs-chat.cjs';

function service(name: string): ComposeService {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no "${name}" service`);
  return found;
}

function environmentOf(name: string): Record<string, string> {
  const entries = Object.entries(service(name).environment ?? {});
  return Object.fromEntries(entries.map(([key, value]) => [key, interpolateDefaults(String(value ?? ''))]));
}

function buildOf(name: string): ComposeBuild {
  const build = service(name).build;
  if (build === undefined) throw new Error(`service "${name}" has no build section`);
  return typeof build === 'string' ? { context: build } : build;
}

function dependencyConditions(name: string): Record<string, string | undefined> {
  const dependsOn = service(name).depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((dependency) => [dependency, 'service_started']));
  return Object.fromEntries(Object.entries(dependsOn).map(([dependency, spec]) => [dependency, spec.condition]));
}

/** Published host port to container port, with `${...}` defaults applied. */
function publishedPorts(name: string): Map<number, number> {
  const ports = new Map<number, number>();
  for (const entry of service(name).ports ?? []) {
    const parts = interpolateDefaults(String(entry)).split(':');
    const container = Number(parts.at(-1));
    const host = Number(parts.at(-2));
    ports.set(host, container);
  }
  return ports;
}

/** ENTRYPOINT plus CMD of a service's container: the compose overrides, else the server image's own. */
function effectiveArgv(name: string): string[] {
  const server = dockerfile.instructions.filter((step) => step.stage === 'server');
  const imageEntrypoint = JSON.parse(server.find((step) => step.keyword === 'ENTRYPOINT')?.args ?? '[]') as string[];
  const imageCommand = JSON.parse(server.find((step) => step.keyword === 'CMD')?.args ?? '[]') as string[];
  const { entrypoint, command } = service(name);
  const asList = (value: string[] | string | undefined) =>
    value === undefined ? undefined : Array.isArray(value) ? value : value.split(/\s+/);
  return [...(asList(entrypoint) ?? imageEntrypoint), ...(asList(command) ?? (entrypoint === undefined ? imageCommand : []))];
}

function healthcheckArgv(name: string): string[] {
  const test = service(name).healthcheck?.test;
  if (!Array.isArray(test) || test.length < 2) throw new Error(`service "${name}" has no exec-form healthcheck`);
  const [form, ...rest] = test.map((part) => interpolateDefaults(String(part)));
  if (form === 'CMD-SHELL') return ['sh', '-c', rest.join(' ')];
  if (form === 'CMD') return rest;
  throw new Error(`service "${name}" healthcheck starts with ${form}, not CMD or CMD-SHELL`);
}

function runCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    execFile(file as string, args, { env, timeout: 10_000 }, (error) => {
      resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0);
    });
  });
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function answerWith(status: number): Promise<number> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('docker-compose.yml', () => {
  it('declares qdrant, postgres, server, docs-site and ingest, with ingest kept to the ingest profile', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['qdrant', 'postgres', 'server', 'docs-site', 'ingest']));
    expect(service('ingest').profiles).toEqual(['ingest']);
    for (const name of ['qdrant', 'postgres', 'server', 'docs-site']) expect(service(name).profiles).toBeUndefined();
  });

  it('pins qdrant to a 1.x release from 1.16 on and postgres to a major version, never latest', () => {
    const qdrant = /^qdrant\/qdrant:v1\.(\d+)\.(\d+)$/.exec(service('qdrant').image ?? '');
    expect(qdrant).not.toBeNull();
    expect(Number(qdrant?.[1])).toBeGreaterThanOrEqual(16);
    expect(service('postgres').image).toMatch(/^postgres:(16|17)(\.\d+)?(-[a-z0-9]+)?$/);
  });

  it('keeps qdrant and postgres data in named volumes declared at the top level', () => {
    const mounts = (name: string) => (service(name).volumes ?? []).map((volume) => String(volume).split(':'));
    const qdrantVolume = mounts('qdrant').find(([, target]) => target === '/qdrant/storage');
    const postgresVolume = mounts('postgres').find(([, target]) => target === '/var/lib/postgresql/data');
    expect(qdrantVolume).toBeDefined();
    expect(postgresVolume).toBeDefined();
    const declared = Object.keys(compose.volumes ?? {});
    expect(declared).toContain(qdrantVolume?.[0]);
    expect(declared).toContain(postgresVolume?.[0]);
  });

  it('keeps the embedding cache on one named volume that the server and both ingest jobs mount, outside the throwaway DATA_DIR', () => {
    const cacheDir = environmentOf('server').EMBEDDING_CACHE_DIR;
    expect(cacheDir).toBeDefined();
    const dataDir = environmentOf('server').DATA_DIR ?? '';
    // A cache under the tmpfs DATA_DIR would be gone with each container, and every re-ingest would embed every section again.
    expect(`${cacheDir}/`.startsWith(`${dataDir}/`)).toBe(false);
    const ingestOnStart = Object.entries(dependencyConditions('server')).find(
      ([, condition]) => condition === 'service_completed_successfully',
    )?.[0];
    const volumesAt = (name: string) =>
      (service(name).volumes ?? []).map((volume) => String(volume).split(':')).filter(([, target]) => target === cacheDir);
    const mounted = ['server', 'ingest', ingestOnStart as string].map((name) => {
      expect(environmentOf(name).EMBEDDING_CACHE_DIR).toBe(cacheDir);
      return volumesAt(name)[0]?.[0];
    });
    expect(new Set(mounted).size).toBe(1);
    expect(Object.keys(compose.volumes ?? {})).toContain(mounted[0]);
    // An empty named volume takes the owner of the image's folder: the non-root user must own it.
    const server = dockerfile.instructions.filter((step) => step.stage === 'server' && step.keyword === 'RUN').map((step) => step.args);
    expect(server.some((args) => new RegExp(`mkdir -p .*${cacheDir}.*&& chown node:node .*${cacheDir}`).test(args))).toBe(true);
  });

  it('health-checks qdrant, postgres, the server and the docs site', () => {
    for (const name of ['qdrant', 'postgres', 'server', 'docs-site']) expect(healthcheckArgv(name).length).toBeGreaterThan(0);
    expect(healthcheckArgv('postgres').join(' ')).toContain('pg_isready');
    expect(healthcheckArgv('qdrant').join(' ')).toContain('/readyz');
    expect(healthcheckArgv('server').join(' ')).toContain('/health');
  });

  it('starts the server only once qdrant and postgres are healthy and the docs have been ingested', () => {
    const conditions = dependencyConditions('server');
    expect(conditions.qdrant).toBe('service_healthy');
    expect(conditions.postgres).toBe('service_healthy');
    const ingestJobs = Object.entries(conditions).filter(([, condition]) => condition === 'service_completed_successfully');
    expect(ingestJobs).toHaveLength(1);
    const [jobName] = ingestJobs[0] as [string, string];
    // Compose refuses to start a dependency that a profile disables, so the automatic job has none.
    expect(service(jobName).profiles).toBeUndefined();
    expect(effectiveArgv(jobName).slice(-2)).toEqual([INSTALLED_BIN, 'ingest']);
    expect(dependencyConditions(jobName).qdrant).toBe('service_healthy');
  });

  it('runs the manual ingest job with the image, command and settings of the automatic one', () => {
    const automatic = Object.entries(dependencyConditions('server')).find(
      ([, condition]) => condition === 'service_completed_successfully',
    )?.[0];
    expect(automatic).toBeDefined();
    const { profiles: _profiles, ...manual } = service('ingest');
    expect(manual).toEqual(service(automatic as string));
    expect(service('ingest').image).toBe(service('server').image);
    expect(effectiveArgv('server').slice(-2)).toEqual([INSTALLED_BIN, 'serve']);
    const serverEntrypoint = effectiveArgv('server').slice(0, -1);
    expect(effectiveArgv('ingest')).toEqual([...serverEntrypoint, 'ingest']);
    expect(buildOf('ingest')).toEqual(buildOf('server'));
  });

  it('points the server and the ingest jobs at the compose services instead of localhost', () => {
    for (const name of ['server', 'ingest']) {
      const env = environmentOf(name);
      expect(env.VECTOR_STORE).toBe('qdrant');
      expect(env.QDRANT_URL).toBe('http://qdrant:6333');
      expect(env.DATA_DIR).toBe('/data');
    }
    const server = environmentOf('server');
    expect(server.HOST).toBe('0.0.0.0');
    expect(server.PORT).toBe('8000');
    const postgres = environmentOf('postgres');
    const database = new URL(server.DATABASE_URL ?? '');
    expect(database.protocol).toBe('postgres:');
    expect(database.host).toBe('postgres:5432');
    expect(database.username).toBe(postgres.POSTGRES_USER);
    expect(database.password).toBe(postgres.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${postgres.POSTGRES_DB}`);
  });

  it('reads .env without requiring it, so a fresh clone starts with the defaults', () => {
    for (const name of ['server', 'ingest']) {
      expect(service(name).env_file).toEqual([{ path: '.env', required: false }]);
    }
  });

  it('publishes the server on 8000 and the docs site on 3000, and lets the docs site origin call the server', () => {
    expect(publishedPorts('server').get(8000)).toBe(8000);
    const siteContainerPort = publishedPorts('docs-site').get(3000);
    expect(siteContainerPort).toBeDefined();
    expect(
      dockerfile.instructions.some(
        (step) => step.stage === buildOf('docs-site').target && step.keyword === 'EXPOSE' && step.args === String(siteContainerPort),
      ),
    ).toBe(true);
    const allowed = (environmentOf('server').CORS_ORIGINS ?? '').split(',').map((origin) => origin.trim());
    const siteUrl = buildOf('docs-site').args?.DOCS_SITE_URL;
    expect(siteUrl).toBeDefined();
    expect(allowed).toContain(new URL(interpolateDefaults(siteUrl as string)).origin);
    expect(allowed).toContain('http://localhost:3000');
  });

  it("builds the widget against the server's address as the browser reaches it, not the compose service name", () => {
    const serverUrl = new URL(interpolateDefaults(buildOf('docs-site').args?.DOCS_CHAT_SERVER_URL ?? ''));
    expect(serverUrl.hostname).toBe('localhost');
    expect(publishedPorts('server').get(Number(serverUrl.port))).toBe(8000);
  });

  it('builds every image from a context and Dockerfile that exist, with a target the Dockerfile defines', () => {
    const built = Object.keys(services).filter((name) => service(name).build !== undefined);
    expect(built).toEqual(expect.arrayContaining(['server', 'docs-site', 'ingest']));
    for (const name of built) {
      const build = buildOf(name);
      const context = path.resolve(REPO_ROOT, build.context ?? '.');
      expect(fs.statSync(context).isDirectory()).toBe(true);
      expect(fs.existsSync(path.resolve(context, build.dockerfile ?? 'Dockerfile'))).toBe(true);
      expect([...dockerfile.stages.keys()]).toContain(build.target);
    }
  });

  it('documents in .env.example every variable the compose file reads from the environment', () => {
    const documented = envExampleVariables(readRepoFile('.env.example'));
    const missing = [...interpolatedVariables(readRepoFile('docker-compose.yml'))].filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });
});

describe('health checks', () => {
  it('reports qdrant healthy when /readyz answers 200, and unhealthy when it answers 503 or nothing listens', async () => {
    const argv = healthcheckArgv('qdrant');
    const onPort = (port: number) => argv.map((part) => part.replaceAll('/dev/tcp/127.0.0.1/6333', `/dev/tcp/127.0.0.1/${port}`));
    expect(argv.join(' ')).toContain('/dev/tcp/127.0.0.1/6333');

    const qdrant = await startQdrantStandIn();
    try {
      expect(await runCommand(onPort(Number(new URL(qdrant.url).port)))).toBe(0);
    } finally {
      await qdrant.close();
    }
    expect(await runCommand(onPort(await answerWith(503)))).not.toBe(0);
    const closed = await answerWith(200);
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    expect(await runCommand(onPort(closed))).not.toBe(0);
  });

  it('reports postgres unhealthy while nothing accepts connections, and healthy once a server does', async () => {
    const argv = healthcheckArgv('postgres');
    if ((await runCommand(['sh', '-c', 'command -v pg_isready'])) !== 0) {
      console.warn('pg_isready is not installed here: the postgres healthcheck command was not run (its shape is checked above).');
      return;
    }
    const closed = await answerWith(200);
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    const environment = { ...process.env, POSTGRES_USER: 'postgres', POSTGRES_DB: 'test' };
    expect(await runCommand(argv, { ...environment, PGPORT: String(closed) })).not.toBe(0);
    if ((await runCommand(['pg_isready', '-h', '127.0.0.1', '-p', '5432'])) !== 0) {
      console.warn('No PostgreSQL answers at 127.0.0.1:5432: the healthy case of the postgres healthcheck was skipped.');
      return;
    }
    expect(await runCommand(argv, { ...environment, PGPORT: '5432' })).toBe(0);
  });

  it('reports the server healthy on a 200 from /health and unhealthy on a 503', async () => {
    const argv = healthcheckArgv('server');
    expect(argv.join(' ')).toContain('127.0.0.1:8000/health');
    const onPort = (port: number) => argv.map((part) => part.replaceAll('127.0.0.1:8000', `127.0.0.1:${port}`));
    expect(await runCommand(onPort(await answerWith(200)))).toBe(0);
    expect(await runCommand(onPort(await answerWith(503)))).not.toBe(0);
  });

  it("makes the server image's own HEALTHCHECK follow PORT", async () => {
    const healthcheck = dockerfile.instructions.find((step) => step.stage === 'server' && step.keyword === 'HEALTHCHECK');
    expect(healthcheck).toBeDefined();
    const exec = /CMD\s+(\[.*\])\s*$/.exec(healthcheck?.args ?? '');
    const argv = JSON.parse(exec?.[1] ?? '[]') as string[];
    expect(argv[0]).toBe('node');
    expect(await runCommand(argv, { ...process.env, PORT: String(await answerWith(200)) })).toBe(0);
    expect(await runCommand(argv, { ...process.env, PORT: String(await answerWith(503)) })).not.toBe(0);
  });
});

describe('Dockerfile', () => {
  const runSteps = dockerfile.instructions.filter((step) => step.keyword === 'RUN');

  it('installs with the pnpm version pinned in package.json, through npx, never corepack', () => {
    const pinned = rootPackage.packageManager.replace(/^pnpm@/, '');
    const pnpmCalls = runSteps.flatMap((step) => [...step.args.matchAll(/(\S+\s+(?:-y\s+)?)?pnpm(@\S+)?\s/g)].map((match) => match[0]));
    expect(pnpmCalls.length).toBeGreaterThan(0);
    for (const call of pnpmCalls) expect(call).toMatch(new RegExp(`^npx -y pnpm@${pinned.replaceAll('.', '\\.')}\\s$`));
    expect(runSteps.some((step) => step.args.includes('install --frozen-lockfile'))).toBe(true);
    expect(runSteps.filter((step) => /corepack/i.test(step.args))).toEqual([]);
  });

  it('copies the manifest of every workspace package before the first install, so --frozen-lockfile sees the whole workspace', () => {
    const workspace = parse(readRepoFile('pnpm-workspace.yaml')) as { packages: string[] };
    const packageDirs = workspace.packages
      .flatMap((pattern) =>
        pattern.endsWith('/*')
          ? fs
              .readdirSync(path.join(REPO_ROOT, pattern.slice(0, -2)), { withFileTypes: true })
              .filter((entry) => entry.isDirectory())
              .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
          : [pattern],
      )
      .filter((dir) => fs.existsSync(path.join(REPO_ROOT, dir, 'package.json')));
    expect(packageDirs.length).toBeGreaterThanOrEqual(5);
    const firstInstall = dockerfile.instructions.findIndex((step) => step.keyword === 'RUN' && step.args.includes(' install '));
    const copiedBefore = dockerfile.instructions
      .slice(0, firstInstall)
      .filter((step) => step.keyword === 'COPY')
      .flatMap((step) => step.args.split(/\s+/).slice(0, -1));
    for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', ...packageDirs.map((dir) => `${dir}/package.json`)]) {
      expect([file, copiedBefore.includes(file)]).toEqual([file, true]);
    }
  });

  it('copies no .env into an image and only sources that exist and the build context keeps', () => {
    const dockerignore = readRepoFile('.dockerignore');
    const copies = dockerfile.instructions.filter(
      (step) => (step.keyword === 'COPY' || step.keyword === 'ADD') && !step.args.includes('--from='),
    );
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = copy.args.split(/\s+/).filter((part) => !part.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        expect(path.basename(source)).not.toMatch(/^\.env($|\.)/);
        expect(fs.existsSync(path.join(REPO_ROOT, source))).toBe(true);
        if (source !== '.') expect(isExcludedByDockerignore(dockerignore, path.posix.normalize(source))).toBe(false);
      }
    }
  });

  it('keeps secrets, installed packages, local data and build outputs out of the build context', () => {
    const dockerignore = readRepoFile('.dockerignore');
    for (const excluded of [
      '.env',
      'packages/server/.env',
      '.env.local',
      'node_modules/jest/package.json',
      'packages/core/node_modules/yaml/index.js',
      '.data/index.json',
      '.git/HEAD',
      'docs-site/build/index.html',
      'packages/docusaurus-plugin/lib/index.js',
    ]) {
      expect([excluded, isExcludedByDockerignore(dockerignore, excluded)]).toEqual([excluded, true]);
    }
    for (const kept of [
      '.env.example',
      'package.json',
      'pnpm-lock.yaml',
      'packages/core/src/index.ts',
      'docs-site/docs/intro.md',
      'docker/docs-site.nginx.conf',
    ]) {
      expect([kept, isExcludedByDockerignore(dockerignore, kept)]).toEqual([kept, false]);
    }
  });

  it('runs the server on node:20-slim as a non-root user, exposing 8000 with a health check', () => {
    expect(dockerfile.stages.get('server')).toBe('node:20-slim');
    const server = dockerfile.instructions.filter((step) => step.stage === 'server');
    const users = server.filter((step) => step.keyword === 'USER').map((step) => step.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(server.some((step) => step.keyword === 'EXPOSE' && step.args.split(/\s+/).includes('8000'))).toBe(true);
    expect(server.some((step) => step.keyword === 'HEALTHCHECK')).toBe(true);
    // The image runs the server as npm installed it from the packed package: node and its bin shim,
    // no tsx, no TypeScript sources.
    const entrypoint = server.find((step) => step.keyword === 'ENTRYPOINT');
    const argv = JSON.parse(entrypoint?.args ?? '[]') as string[];
    expect(argv).toEqual(['node', INSTALLED_BIN]);
    const bin = (JSON.parse(readRepoFile('packages/server/package.json')) as { bin: Record<string, string> }).bin['docs-chat']!;
    expect(path.posix.join('/app/node_modules/@docs-chat/server', bin)).toBe(INSTALLED_BIN);
    expect(fs.existsSync(path.join(REPO_ROOT, 'packages/server', bin))).toBe(true);
    const copied = server.filter((step) => step.keyword === 'COPY').map((step) => step.args);
    expect(copied.some((args) => /packages\/(core|server)\/src/.test(args))).toBe(false);
    expect(copied).toContain('--from=builder /packs /packs');
    const builder = dockerfile.instructions
      .filter((step) => step.stage === 'builder' && step.keyword === 'RUN')
      .map((step) => step.args)
      .join('\n');
    expect(builder).toMatch(/pnpm@[\d.]+ build/);
    expect(builder).toMatch(/for package in protocol core server;.*pnpm@[\d.]+ pack --pack-destination \/packs/s);
  });
});

describe('.env.example', () => {
  it('lists every variable the server and core read', () => {
    const reads = variablesReadBySource();
    // The scan must see the reads we know of, or an empty result would pass for the wrong reason.
    for (const known of ['PORT', 'HOST', 'DATABASE_URL', 'GEMINI_API_KEY', 'QDRANT_URL', 'DATA_DIR', 'CORS_ORIGINS'])
      expect(reads.has(known)).toBe(true);
    const documented = envExampleVariables(readRepoFile('.env.example'));
    const missing = [...reads.entries()]
      .filter(([name]) => !documented.has(name))
      .map(([name, files]) => `${name} (read in ${files.join(', ')})`);
    expect(missing).toEqual([]);
  });
});

describe('the backup guide', () => {
  it('names every table the conversation database migrations create', () => {
    const migrations = readRepoFile('packages/server/src/conversations/migrations.ts');
    const tables = [...migrations.matchAll(/create (?:unlogged )?table if not exists (\w+)/gi)].map((match) => match[1]);
    // The scan must find the tables we know of, or an empty list would pass for the wrong reason.
    expect(tables).toEqual(expect.arrayContaining(['conversations', 'messages', 'feedback', 'schema_migrations']));
    const backups = readRepoFile('docs-site/docs/deployment/operations.md').split('### Back up conversations')[1]?.split('\n### ')[0] ?? '';
    expect(tables.filter((table) => !backups.includes(`\`${table}\``))).toEqual([]);
  });
});
