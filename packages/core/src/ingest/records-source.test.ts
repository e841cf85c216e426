import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadCoreConfig } from '../config.js';
import { isDocsChatError } from '../errors.js';
import { openRetrieval, runIngest, runRecordsIngest } from '../runtime.js';
import { assembleContext } from '../search/context-assembly.js';

const MAP = 'id=rule.id,title=rule.name,text=description,url=links.docs,examples=examples';
const PLAIN_MAP = 'id=rule.id,title=rule.name,text=description';

function rule(id: string, name: string, description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { rule: { id, name }, description, ...extra };
}

describe('ingest of JSON records', () => {
  let work: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-records-'));
    env = { DATA_DIR: path.join(work, 'data'), EMBEDDING_PROVIDER: 'local' };
  });
  afterEach(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  async function writeFile(name: string, content: string): Promise<string> {
    const file = path.join(work, name);
    await fs.writeFile(file, content);
    return file;
  }
  const ingest = (input: string, map = MAP) => runRecordsIngest(loadCoreConfig(env), { input, map });
  async function search(question: string) {
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      return (await retrieval.retriever.search(question)).hits;
    } finally {
      await retrieval.close();
    }
  }

  it('indexes each record as a document with its examples, cited by title and URL or by id', async () => {
    const records = [
      rule('no-floating-promises', 'No floating promises', 'Every promise must be awaited or handled.', {
        links: { docs: 'https://rules.example/no-floating-promises' },
        examples: ['const value = await fetchWeather();', { bad: 'fetchWeather();\nreturn;' }],
      }),
      rule('prefer-lighthouse', 'Prefer the lighthouse helper', 'Use the lighthouse helper to signal ships in fog.'),
    ];
    const report = await ingest(await writeFile('rules.json', JSON.stringify(records)));
    expect(report.files).toMatchObject({ total: 2, added: 2, failed: [] });

    const [exampleHit] = await search('fetchWeather await');
    expect(exampleHit?.chunk).toMatchObject({
      docId: 'no-floating-promises',
      title: 'No floating promises',
      url: 'https://rules.example/no-floating-promises',
      source: 'records:rules',
    });
    const [noUrl] = await search('signal ships in fog lighthouse');
    expect(noUrl?.chunk).toMatchObject({ docId: 'prefer-lighthouse', url: '', source: 'records:rules' });
    expect(assembleContext([noUrl!]).text).toContain('[1] Prefer the lighthouse helper (id prefer-lighthouse)');
  }, 60_000);

  it('reports bad records with their line and field and ingests the others', async () => {
    const lines = [
      JSON.stringify(rule('alpha', 'Alpha', 'The alpha rule keeps the reactor cool.')),
      '{"rule": {"id": "broken", ',
      JSON.stringify(rule('alpha', 'Alpha again', 'A second alpha rule.')),
      JSON.stringify({ rule: { id: 'no-text', name: 'No text' } }),
      JSON.stringify(rule('huge', 'Huge', 'x'.repeat(5 * 1024 * 1024))),
      JSON.stringify(rule('beta', 'Beta', 'The beta rule waters the greenhouse plants.')),
    ];
    const report = await ingest(await writeFile('rules.jsonl', `${lines.join('\n')}\n`), PLAIN_MAP);
    expect(report.files.added).toBe(2);
    const reasons = report.files.failed.map((entry) => `${entry.file}: ${entry.reason}`);
    expect(reasons).toEqual([
      expect.stringMatching(/^rules\.jsonl line 2: not valid JSON/),
      expect.stringMatching(/^rules\.jsonl line 3 \(id alpha\): repeats id "alpha" of rules\.jsonl line 1/),
      expect.stringMatching(/^rules\.jsonl line 4 \(id no-text\): has no text at "description"/),
      expect.stringMatching(/^rules\.jsonl line 5 \(id huge\): is 5\.0 MB, most of it in text \(description\)/),
    ]);
    expect((await search('greenhouse plants'))[0]?.chunk.docId).toBe('beta');
    expect((await search('reactor cool'))[0]?.chunk.title).toBe('Alpha');
  }, 60_000);

  it('refuses a file that is not an array or lines, and a mapping naming a field no record has', async () => {
    const notList = await ingest(await writeFile('object.json', JSON.stringify({ rules: [rule('a', 'A', 'text')] }, null, 2))).catch(
      (error: unknown) => error,
    );
    expect(isDocsChatError(notList) && notList.code).toBe('records_invalid');
    expect((notList as Error).message).toMatch(/object\.json is neither a JSON array of records nor JSON Lines/);

    const typo = await ingest(await writeFile('ok.json', JSON.stringify([rule('a', 'A', 'text')])), 'id=rule.id,text=descripton').catch(
      (error: unknown) => error,
    );
    expect(isDocsChatError(typo) && typo.code).toBe('records_invalid');
    expect((typo as Error).message).toContain('text=descripton');
    expect((typo as Error).message).toContain('none of the 1 records');
  }, 60_000);

  it('shares one index with the docs: each run leaves the other source alone', async () => {
    const docsDir = path.join(work, 'docs');
    await fs.mkdir(docsDir);
    await fs.writeFile(path.join(docsDir, 'intro.md'), '# Harbour\n\nThe harbour master assigns moorings to arriving boats.\n');
    await runIngest(loadCoreConfig(env), { docsDir });
    const records = await ingest(
      await writeFile('rules.json', JSON.stringify([rule('kiln', 'Kiln', 'The kiln fires pottery overnight.')])),
      PLAIN_MAP,
    );
    expect(records.files.deleted).toBe(0);
    const docsAgain = await runIngest(loadCoreConfig(env), { docsDir });
    expect(docsAgain.files).toMatchObject({ unchanged: 1, deleted: 0 });
    expect(docsAgain.chunks.total).toBe(records.chunks.total);
    expect((await search('kiln pottery'))[0]?.chunk.source).toBe('records:rules');
    expect((await search('harbour moorings boats'))[0]?.chunk.source).toBe('docs');
  }, 60_000);
});
