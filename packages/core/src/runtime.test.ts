import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadCoreConfig } from './config.js';
import { openRetrieval, runIngest } from './runtime.js';

describe('SEARCH_SYNONYMS_FILE', () => {
  let workDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-synonyms-'));
    const docsDir = path.join(workDir, 'docs');
    await fs.mkdir(docsDir, { recursive: true });
    await fs.writeFile(
      path.join(docsDir, 'ground-station.md'),
      '# Ground station\n\n## Pointing the dish\n\nThe dish follows each satellite across the sky.\n',
    );
    await fs.writeFile(
      path.join(docsDir, 'archive.md'),
      '# Archive\n\n## Keeping telemetry\n\nTelemetry frames are kept for thirty days.\n',
    );
    env = { DATA_DIR: path.join(workDir, 'data'), DOCS_DIR: docsDir, EMBEDDING_PROVIDER: 'local' };
    await runIngest(loadCoreConfig(env));
  });
  afterAll(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  async function search(question: string, synonymsFile?: string) {
    const retrieval = await openRetrieval(loadCoreConfig(synonymsFile ? { ...env, SEARCH_SYNONYMS_FILE: synonymsFile } : env));
    try {
      return await retrieval.retriever.search(question);
    } finally {
      await retrieval.close();
    }
  }

  it("lets a question in the readers' jargon find the section, with no re-ingest", async () => {
    const question = 'Where is the antenna aimed?';
    expect((await search(question)).outOfScope).toBe(true);
    const file = path.join(workDir, 'synonyms.txt');
    await fs.writeFile(file, '# our readers say antenna\nantenna, dish\naimed, aiming, pointing\n');
    const response = await search(question, file);
    expect(response.outOfScope).toBe(false);
    expect(response.hits[0]?.chunk.heading).toBe('Pointing the dish');
  });

  it('uses SCOPE_MIN_VOCABULARY and SCOPE_MIN_EVIDENCE instead of the calibrated thresholds', async () => {
    const question = 'Where is the antenna aimed?';
    const strict = await search(question);
    expect(strict.outOfScope).toBe(true);
    const retrieval = await openRetrieval(loadCoreConfig({ ...env, SCOPE_MIN_VOCABULARY: '0', SCOPE_MIN_EVIDENCE: '0' }));
    try {
      const lenient = await retrieval.retriever.search(question, { explain: true });
      expect(lenient.outOfScope).toBe(false);
      expect(lenient.explanation?.scope).toMatchObject({ minVocabulary: 0, minEvidence: 0 });
    } finally {
      await retrieval.close();
    }
  });

  it('stops with a message naming the variable when the file is missing, and the line when it is malformed', async () => {
    const missing = path.join(workDir, 'nowhere.txt');
    await expect(search('dish', missing)).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining(`SEARCH_SYNONYMS_FILE=${missing} cannot be read (ENOENT)`),
    });
    const bad = path.join(workDir, 'bad.txt');
    await fs.writeFile(bad, 'antenna, dish\nantenna\n');
    await expect(search('dish', bad)).rejects.toMatchObject({ message: expect.stringContaining(`SEARCH_SYNONYMS_FILE=${bad}, line 2`) });
  });
});
