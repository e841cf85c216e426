import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadMarkdownCorpus } from './engines/markdown-corpus.js';
import { describeUnmatched, unmatchedExpectations } from './hit-matching.js';

describe('expected sections a golden question can never hit', () => {
  let docs: string;

  beforeAll(async () => {
    docs = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-golden-'));
    await fs.mkdir(path.join(docs, 'guides'));
    await fs.writeFile(
      path.join(docs, 'guides', 'deploy.md'),
      '# Deploy\n\nAn introduction to deploying.\n\n## Set `PORT` {#port}\n\nThe port.\n\n### Behind a *proxy*\n\nTrust it.\n\n#### Forwarded headers\n\nRead them.\n',
    );
    await fs.writeFile(path.join(docs, 'faq.md'), '# FAQ\n\n## Why is it slow?\n\nCaches. See Forwarded headers in the deploy guide.\n');
  });

  afterAll(async () => {
    await fs.rm(docs, { recursive: true, force: true });
  });

  it('accepts headings as written in the markdown, subsections, introductions and an H4 inside its section', async () => {
    const { chunks } = await loadMarkdownCorpus(docs);
    const unmatched = unmatchedExpectations(
      [
        {
          id: 'q1',
          expected: [
            { file: 'guides/deploy.md', heading: 'Set `PORT`' },
            { file: 'guides/deploy.md', heading: 'Behind a *proxy*' },
            { file: 'guides/deploy.md', heading: null },
            { file: 'faq.md', heading: 'Why is it slow?' },
            { file: 'guides/deploy.md', heading: 'Forwarded headers' },
          ],
        },
      ],
      chunks,
    );
    expect(unmatched).toEqual([]);
  });

  it('lists a misspelt heading, a missing page and an introduction the page does not have, each saying what to fix', async () => {
    const { chunks } = await loadMarkdownCorpus(docs);
    const unmatched = unmatchedExpectations(
      [
        { id: 'q1', expected: [{ file: 'guides/deploy.md', heading: 'Set the port' }] },
        { id: 'q2', expected: [{ file: 'guides/deployment.md', heading: 'Set `PORT`' }] },
        { id: 'q3', expected: [{ file: 'faq.md', heading: null }] },
        // Named in a sentence of faq.md, but a heading only in the deploy guide.
        { id: 'q4', expected: [{ file: 'faq.md', heading: 'Forwarded headers' }] },
      ],
      chunks,
    );
    expect(unmatched.map(({ id, reason }) => [id, reason])).toEqual([
      ['q1', 'no_such_heading'],
      ['q2', 'no_such_page'],
      ['q3', 'no_such_heading'],
      ['q4', 'no_such_heading'],
    ]);
    const messages = unmatched.map((entry) => describeUnmatched(entry, docs));
    expect(messages[0]).toContain('"Set the port"');
    expect(messages[0]).toContain('copy it from the markdown');
    expect(messages[1]).toContain('has no such page');
    expect(messages[2]).toContain('give the heading instead of null');
  });
});
