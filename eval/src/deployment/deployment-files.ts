/**
 * Readers for the deployment files (docker-compose.yml, Dockerfile, .dockerignore, .env.example)
 * and for the environment variables the server and core read. No Docker engine runs where the
 * tests run, so these let a test check what can be checked from the files themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function readRepoFile(relativePath: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, relativePath), 'utf8');
}

export interface ComposeBuild {
  context?: string;
  dockerfile?: string;
  target?: string;
  args?: Record<string, string>;
}

export interface ComposeDependency {
  condition?: string;
}

export interface ComposeService {
  image?: string;
  build?: ComposeBuild | string;
  entrypoint?: string[] | string;
  command?: string[] | string;
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string | number | boolean | null>;
  env_file?: (string | { path: string; required?: boolean })[] | string;
  depends_on?: Record<string, ComposeDependency> | string[];
  healthcheck?: { test?: string[] | string; interval?: string };
  tmpfs?: string[] | string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** Parses docker-compose.yml the way Compose does, `<<` merge keys included. */
export function readComposeFile(relativePath = 'docker-compose.yml'): ComposeFile {
  return parse(readRepoFile(relativePath), { merge: true }) as ComposeFile;
}

/**
 * Applies Compose interpolation with no variable set: `${X:-default}` and `${X-default}` give
 * the default, `${X}` gives an empty string, `$$` gives a literal `$`. This is what a fresh
 * clone without .env runs with.
 */
export function interpolateDefaults(value: string): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g,
    (match, _name: string | undefined, fallback: string | undefined) => {
      if (match === '$$') return '$';
      return fallback ?? '';
    },
  );
}

/** Names of the variables a compose file interpolates (`${NAME...}`), `$$` escapes excluded. */
export function interpolatedVariables(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.replace(/\$\$/g, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (match[1]) names.add(match[1]);
  }
  return names;
}

export interface DockerInstruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  /** Name of the stage the instruction belongs to (`FROM image AS name`), or its index. */
  stage: string;
}

export interface Dockerfile {
  instructions: DockerInstruction[];
  /** Stage name to its base image, with `${ARG}` defaults resolved. */
  stages: Map<string, string>;
}

export function parseDockerfile(text: string): Dockerfile {
  const logicalLines: string[] = [];
  let pending = '';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (pending !== '' && line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logicalLines.push(pending + line);
    pending = '';
  }
  if (pending !== '') logicalLines.push(pending);

  const globalArgs = new Map<string, string>();
  const stages = new Map<string, string>();
  const instructions: DockerInstruction[] = [];
  let stage = '';
  for (const line of logicalLines) {
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!match?.[1]) continue;
    const keyword = match[1].toUpperCase();
    const args = (match[2] ?? '').trim();
    if (keyword === 'ARG' && stage === '') {
      const [name, value] = args.split('=', 2);
      if (name) globalArgs.set(name.trim(), (value ?? '').trim());
    }
    if (keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      const image = (from?.[1] ?? '').replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_all, name: string) => globalArgs.get(name) ?? '');
      stage = from?.[2] ?? String(stages.size);
      stages.set(stage, image);
    }
    instructions.push({ keyword, args, stage });
  }
  return { instructions, stages };
}

/**
 * Whether `.dockerignore` keeps `relativePath` out of the build context: patterns are matched
 * against the path and each of its parent folders, `*` and `?` stay within one path segment,
 * `**` spans any number of them, and the last matching pattern wins (`!` re-includes).
 */
export function isExcludedByDockerignore(dockerignore: string, relativePath: string): boolean {
  const rules = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = path.posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, ''));
      return { negated, regex: patternToRegex(pattern) };
    });
  const segments = relativePath.split('/');
  const candidates = segments.map((_segment, index) => segments.slice(0, index + 1).join('/'));
  let excluded = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.regex.test(candidate))) excluded = !rule.negated;
  }
  return excluded;
}

function patternToRegex(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '*' && pattern[index + 1] === '*') {
      const followedBySlash = pattern[index + 2] === '/';
      source += followedBySlash ? '(?:.*/)?' : '.*';
      index += followedBySlash ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** Variable names `.env.example` documents, whether set or commented out (`# NAME=...`). */
export function envExampleVariables(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^\s*#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (match?.[1]) names.add(match[1]);
  }
  return names;
}

// The ways the server and core read a variable: process.env.X, env.X, env['X'], and the small
// readers of their config modules (read('X'), integer('X', ...), text(env, 'X'), url(env, 'X'), ...).
const VARIABLE_READS = [
  /process\.env\.([A-Z][A-Z0-9_]*)/g,
  /process\.env\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
  /\benv\.([A-Z][A-Z0-9_]*)\b/g,
  /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g,
  /\b(?:read|text|integer|oneOf|positiveInteger|url)(?:<[^>()]*>)?\(\s*(?:env\s*,\s*)?['"]([A-Z][A-Z0-9_]*)['"]/g,
];

/** Files that only tests use (they read test-only variables such as TEST_DATABASE_URL). */
function isTestOnlyFile(file: string): boolean {
  const base = path.basename(file);
  return (
    /\.(test|bench)\.tsx?$/.test(base) ||
    base.startsWith('test-') ||
    base.endsWith('-test-support.ts') ||
    file.split(path.sep).includes('testing') ||
    file.split(path.sep).includes('__fixtures__')
  );
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name)) files.push(full);
  }
  return files;
}

/** Every environment variable read by the server (packages/server/src) and the core (packages/core/src), test helpers excluded. */
export function variablesReadBySource(relativeDirectories = ['packages/server/src', 'packages/core/src']): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  for (const directory of relativeDirectories) {
    for (const file of sourceFiles(path.join(REPO_ROOT, directory))) {
      if (isTestOnlyFile(path.relative(REPO_ROOT, file))) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const pattern of VARIABLE_READS) {
        for (const match of text.matchAll(pattern)) {
          const name = match[1];
          if (!name) continue;
          const where = path.relative(REPO_ROOT, file);
          reads.set(name, [...new Set([...(reads.get(name) ?? []), where])]);
        }
      }
    }
  }
  return reads;
}
