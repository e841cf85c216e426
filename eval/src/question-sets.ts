/**
 * Every golden question set, marked dev or test in this one place.
 * - dev: tune freely; every ranking weight and threshold in the retrieval
 *   profile was measured on these.
 * - test: frozen. Written from the pages before any retriever saw the corpus,
 *   never edited, never tuned on; run at checkpoints once a design is settled
 *   on the dev sets, and never changed in response to a per-question result.
 *   The `-fresh` sets are held-out questions on two dev corpora: written
 *   (2026-11-28) from the pages by someone who never saw what the retriever
 *   returns, and committed before their first run. The corpus-wide word lists
 *   were fitted on those corpora, so they are a weaker test than zustand, but
 *   no weight or rule was fitted on these questions.
 *   `pino` and `undici` (2026-11-29) are dev sets on the docs those packages
 *   ship (dependencies of the server and of the Qdrant client), written from
 *   the pages without running a retriever, so the profile is judged on more
 *   corpora than the three it was first fitted on.
 *   `fastify` (2026-11-29) is a second blind corpus: the docs folder the
 *   fastify package ships (the server's own dependency, so it is installed
 *   wherever the workspace is), its questions committed before any retriever
 *   ran on it.
 *   The three were written against pino 10.4.0, undici 6.29.1 and fastify
 *   5.12.8. A release that renames a heading they expect makes
 *   question-sets.test.ts fail, naming the question to fix.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type SetRole = 'dev' | 'test';

export interface QuestionSetEntry {
  name: string;
  role: SetRole;
  /** Docs folder, absolute. */
  docs: string;
  /** Question file, absolute. */
  questions: string;
}

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = path.resolve(repo, '..', 'shared');

/** The package.json of `name` as seen from `manifest`; through its entry point when its exports hide package.json. */
function packageManifest(manifest: string, name: string): string {
  const require = createRequire(manifest);
  try {
    return require.resolve(`${name}/package.json`);
  } catch {
    let folder = path.dirname(require.resolve(name));
    while (!fs.existsSync(path.join(folder, 'package.json')) || !folder.endsWith(path.join('node_modules', name))) {
      const parent = path.dirname(folder);
      if (parent === folder) throw new Error(`No package.json for ${name}`);
      folder = parent;
    }
    return path.join(folder, 'package.json');
  }
}

/**
 * The docs folder a package of the workspace's dependencies ships, found by resolving each package of
 * `chain` from the one before it, starting at `from` (pnpm installs only declared dependencies where a
 * package can resolve them).
 */
function shippedDocs(from: string, chain: readonly string[]): string {
  let manifest = path.join(repo, from, 'package.json');
  try {
    for (const name of chain) manifest = packageManifest(manifest, name);
    return path.join(path.dirname(manifest), 'docs');
  } catch {
    // Not installed: the evaluation then says the docs folder is missing (run `pnpm install`).
    return path.join(repo, from, 'node_modules', ...chain.slice(-1), 'docs');
  }
}

export const QUESTION_SETS: readonly QuestionSetEntry[] = [
  { name: 'redux', role: 'dev', docs: path.join(shared, 'corpora', 'redux'), questions: path.join(shared, 'eval', 'redux.questions.json') },
  {
    name: 'typescript-eslint',
    role: 'dev',
    docs: path.join(shared, 'corpora', 'typescript-eslint'),
    questions: path.join(repo, 'eval', 'typescript-eslint.questions.json'),
  },
  {
    name: 'docs-site',
    role: 'dev',
    docs: path.join(repo, 'docs-site', 'docs'),
    questions: path.join(repo, 'eval', 'docs-site.questions.json'),
  },
  {
    name: 'docs-site-troubleshooting',
    role: 'dev',
    docs: path.join(repo, 'docs-site', 'docs'),
    questions: path.join(repo, 'eval', 'docs-site-troubleshooting.questions.json'),
  },
  {
    name: 'typescript-eslint-troubleshooting',
    role: 'dev',
    docs: path.join(shared, 'corpora', 'typescript-eslint'),
    questions: path.join(repo, 'eval', 'typescript-eslint-troubleshooting.questions.json'),
  },
  {
    name: 'pino',
    role: 'dev',
    docs: shippedDocs('packages/server', ['pino']),
    questions: path.join(repo, 'eval', 'pino.questions.json'),
  },
  {
    name: 'undici',
    role: 'dev',
    docs: shippedDocs('packages/core', ['@qdrant/js-client-rest', 'undici']),
    questions: path.join(repo, 'eval', 'undici.questions.json'),
  },
  {
    name: 'redux-fresh',
    role: 'test',
    docs: path.join(shared, 'corpora', 'redux'),
    questions: path.join(repo, 'eval', 'redux-fresh.questions.json'),
  },
  {
    name: 'typescript-eslint-fresh',
    role: 'test',
    docs: path.join(shared, 'corpora', 'typescript-eslint'),
    questions: path.join(repo, 'eval', 'typescript-eslint-fresh.questions.json'),
  },
  {
    name: 'zustand',
    role: 'test',
    docs: path.join(shared, 'corpora', 'zustand'),
    questions: path.join(repo, 'eval', 'zustand.questions.json'),
  },
  {
    name: 'fastify',
    role: 'test',
    docs: shippedDocs('packages/server', ['fastify']),
    questions: path.join(repo, 'eval', 'fastify.questions.json'),
  },
];

export function questionSet(name: string): QuestionSetEntry {
  const entry = QUESTION_SETS.find((candidate) => candidate.name === name);
  if (!entry) throw new Error(`Unknown question set "${name}"; the sets are ${QUESTION_SETS.map((set) => set.name).join(', ')}.`);
  return entry;
}
