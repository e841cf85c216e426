/**
 * `pnpm eval --docs DIR --questions FILE [--k 5] [--json]`: indexes DIR into a
 * temporary embedded store with the configured embedder (the offline `local`
 * one by default) and scores the question set.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDocsChatError, loadCoreConfig, openRetrieval, runIngest } from '@docs-chat/core';
import { readQuestionSet } from './question-set.js';
import { evaluateRetriever, formatEvaluation } from './evaluate.js';

const USAGE = 'Usage: pnpm eval --docs DIR --questions FILE [--k 5] [--json]';

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        docs: { type: 'string' },
        questions: { type: 'string' },
        k: { type: 'string', default: '5' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!values.docs || !values.questions) {
    process.stderr.write(`Both --docs and --questions are required.\n${USAGE}\n`);
    return 2;
  }
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 50) {
    process.stderr.write(`--k must be a whole number from 1 to 50.\n${USAGE}\n`);
    return 2;
  }
  const questions = await readQuestionSet(path.resolve(values.questions));
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-eval-'));
  try {
    // A throwaway embedded index: the evaluation never touches the real one.
    const env = { ...process.env, DATA_DIR: dataDir, VECTOR_STORE: 'embedded', QDRANT_URL: '' };
    const config = loadCoreConfig(env);
    const ingest = await runIngest(config, { docsDir: path.resolve(values.docs), rebuild: true });
    const retrieval = await openRetrieval(config);
    try {
      const report = await evaluateRetriever(retrieval.retriever, questions, k);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        process.stdout.write(
          `Indexed ${ingest.files.total} files into ${ingest.chunks.total} chunks in ${(ingest.durationMs / 1000).toFixed(1)} s with ${ingest.embedder.provider}/${ingest.embedder.model}.\n\n${formatEvaluation(report)}\n`,
        );
      }
      return 0;
    } finally {
      await retrieval.close();
    }
  } catch (error) {
    if (isDocsChatError(error)) {
      process.stderr.write(`eval: ${error.describe()}\n`);
      return 1;
    }
    throw error;
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`eval: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
