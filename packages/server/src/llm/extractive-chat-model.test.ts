import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, parseDocument, type Chunk } from '@docs-chat/core';
import type { ContextSource } from './chat-model.js';
import { createChatModel } from './create-chat-model.js';
import { chatRequest, drain } from './chat-model-test-support.js';
import { NOTHING_FOUND, SELECTION_INTRO, SOURCES_INTRO } from './extractive-chat-model.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'extractive');

function fixture(name: string): string {
  return readFileSync(path.join(fixtures, `${name}.md`), 'utf8');
}

/** The chunks the ingest makes of a fixture page. */
function chunksOf(name: string, maxTokens?: number): Chunk[] {
  const doc = parseDocument({ file: `${name}.md`, text: fixture(name) });
  return chunkDocument(doc, { fileHash: 'f'.repeat(64), ...(maxTokens === undefined ? {} : { maxTokens }) });
}

/** Retrieved sources, numbered in the order given (the retrieval ranking). */
function ranked(chunks: Chunk[]): ContextSource[] {
  return chunks.map((chunk, index) => ({ number: index + 1, score: 1 / (index + 1), chunk }));
}

/** The chunks of a page under these headings (a page's opening is named by its title), in the order given. */
function sections(name: string, ...headings: string[]): ContextSource[] {
  const chunks = chunksOf(name);
  return ranked(
    headings.map((heading) => {
      const chunk = chunks.find((candidate) => (candidate.heading ?? candidate.title) === heading);
      if (!chunk) throw new Error(`${name}.md has no section "${heading}"`);
      return chunk;
    }),
  );
}

const model = createChatModel({ provider: 'extractive', model: '' });

async function answer(question: string, sources: ContextSource[], selection?: string) {
  return drain(
    model.stream(
      chatRequest({
        question,
        messages: [{ role: 'user', content: question }],
        sources,
        ...(selection === undefined ? {} : { selection }),
      }),
    ),
  );
}

/** Fence lines (three or more backticks at the start of a line, after any quote or list indent) come in pairs. */
function fencesAreClosed(markdown: string): boolean {
  return (markdown.match(/^(?:> ?)?\s*`{3,}/gm) ?? []).length % 2 === 0;
}

/** Position of each text in the answer, which must all be there. */
function positions(text: string, parts: string[]): number[] {
  return parts.map((part) => {
    const at = text.indexOf(part);
    if (at === -1) throw new Error(`The answer lacks "${part}":\n${text}`);
    return at;
  });
}

const ascending = (numbers: number[]): boolean => numbers.every((value, index) => index === 0 || value > (numbers[index - 1] ?? 0));

describe('the extractive chat model (answers quoted from the docs when no language model is configured)', () => {
  it("answers a how-to with the section's steps and their code, whole and in order, under a calm label that cites the section", async () => {
    const result = await answer('How do I install the plugin?', sections('how-to-steps-with-code', 'Install the plugin', 'Uninstall'));
    expect(result.error).toBeUndefined();
    expect(result.text.startsWith('From the docs, **Installing the widget › Install the plugin** [1]:')).toBe(true);
    const steps = positions(result.text, [
      '1. Add the package to your site:',
      'npm install @acme/chat-plugin',
      '2. Register the plugin in `docusaurus.config.js`:',
      "plugins: [['@acme/chat-plugin', { serverUrl: 'https://chat.example.com' }]],",
      '3. Restart the dev server and press Ctrl+I on any page.',
    ]);
    expect(ascending(steps)).toBe(true);
    // The code sits inside the step that announces it, as in the docs, and keeps every line but the highlighting directive.
    expect(result.text).toContain('   ```js title="docusaurus.config.js"\n   export default {\n     plugins:');
    expect(result.text).not.toContain('highlight-next-line');
    expect(fencesAreClosed(result.text)).toBe(true);
    expect(result.finish).toEqual({ type: 'finish', reason: 'stop', usage: null });
  });

  it('never opens with, nor mentions, the server configuration: that is for /health and the logs', async () => {
    const questions: [string, ContextSource[]][] = [
      ['How do I install the plugin?', sections('how-to-steps-with-code', 'Install the plugin')],
      ['How does fusion combine the rankings?', ranked(chunksOf('huge-unstructured'))],
      ['What is a thunk?', sections('definition', 'What is a thunk?')],
    ];
    for (const [question, sources] of questions) {
      const { text } = await answer(question, sources);
      expect(text.startsWith('From the docs')).toBe(true);
      expect(text).not.toMatch(/language model|configured|API key|GEMINI/i);
    }
  });

  it('answers a question about what something is with the opening paragraphs of the section, not the code below them', async () => {
    const result = await answer('What is a thunk?', sections('definition', 'What is a thunk?'));
    positions(result.text, ['A thunk is a function that wraps an expression', 'Thunks are the recommended default for async logic.']);
    expect(result.text).not.toContain('fetchTodos');
    expect(result.text).toContain('Read the whole section in the docs [1].');
  });

  it('answers a pasted error with the section that names it: the symptom, the cause, then the fix and its code', async () => {
    const result = await answer(
      'Error: listen EADDRINUSE: address already in use 0.0.0.0:8000 when I start the server',
      sections('troubleshooting-error', 'The port is already in use', 'The index was built with another embedder'),
    );
    const order = positions(result.text, [
      'Error: listen EADDRINUSE: address already in use 0.0.0.0:8000',
      'Cause. Another program, often a second copy of the server, holds the port.',
      'Fix. Stop the other program, or start on a free port:',
      'PORT=8081 acme-chat serve',
    ]);
    expect(ascending(order)).toBe(true);
    expect(result.text).not.toContain('index_mismatch');
    expect(fencesAreClosed(result.text)).toBe(true);
  });

  it('quotes the first lines of a code example longer than the budget, closes its fence, and says how much the docs show', async () => {
    const sources = ranked(chunksOf('code-longer-than-budget'));
    expect(sources.length).toBeGreaterThan(2); // the ingest split the long example over several chunks
    const result = await answer('How do I write a configuration file?', sources);
    expect(fencesAreClosed(result.text)).toBe(true);
    const quotedCode = /```yaml title="chat.config.yaml"\n([\s\S]*?)\n```/.exec(result.text)?.[1] ?? '';
    const original = /```yaml title="chat.config.yaml"\n([\s\S]*?)\n```/.exec(fixture('code-longer-than-budget'))?.[1] ?? '';
    expect(quotedCode.split('\n').length).toBeGreaterThan(5);
    expect(original.startsWith(quotedCode)).toBe(true);
    const note = /\*The first (\d+) of its (\d+) lines; the whole example is in the docs \[(\d+)\]\.\*/.exec(result.text);
    expect(note?.[1]).toBe(String(quotedCode.split('\n').length));
    expect(note?.[2]).toBe(String(original.split('\n').length));
    // The citation points to the source whose chunk holds the quoted lines.
    const cited = sources.find((source) => source.number === Number(note?.[3]));
    expect(cited?.chunk.text).toContain(quotedCode.split('\n')[0]);
  });

  it('quotes the rows of a long table that answer the question, as a table under its header row', async () => {
    const result = await answer('Which variable sets the Qdrant address?', sections('table', 'Environment variables'));
    const tableLines = result.text.split('\n').filter((line) => line.startsWith('|'));
    expect(tableLines).toEqual([
      '| Variable | Default | Meaning |',
      '| --- | --- | --- |',
      '| `QDRANT_URL` | unset | Address of the Qdrant server, used when `VECTOR_STORE` is `qdrant` |',
    ]);
    expect(result.text).toContain('Every setting can be given as an environment variable.');
    expect(result.text).toContain('Read the whole section in the docs [1].');
  });

  it('keeps admonitions whole, as quotes labelled the way the docs label them', async () => {
    const result = await answer('How do I upgrade to version 2?', sections('admonitions', 'Upgrade to version 2'));
    expect(result.text).toContain('> **Warning**\n>\n> - Stop every server before you upgrade.\n> - Back up the `.data` folder first.');
    expect(result.text).toContain('> **Tip: Keep the old index**\n>\n> Rename the old folder instead of deleting it, so you can go back.');
    expect(result.text).toContain('> **Note**\n>\n> ```bash\n> acme-chat ingest --rebuild\n> ```');
    expect(result.text).toContain('The rebuild reads every page once more.');
  });

  it('quotes the best sentences, each with its citation, when the section is one paragraph longer than the budget', async () => {
    const sources = ranked(chunksOf('huge-unstructured'));
    const result = await answer('How does fusion combine the keyword and vector rankings?', sources);
    expect(result.text.startsWith(SOURCES_INTRO)).toBe(true);
    const quotes = result.text.split('\n').filter((line) => line.startsWith('> '));
    expect(quotes[0]).toMatch(/^> Fusion combines the keyword ranking and the vector ranking .* \[\d\]$/);
    for (const line of quotes) {
      const cited = sources.find((source) => source.number === Number(/\[(\d+)\]$/.exec(line)?.[1]));
      expect(cited?.chunk.text.replace(/\s+/g, ' ')).toContain(line.slice(2).replace(/ \[\d+\]$/, ''));
    }
    expect(result.text.length).toBeLessThan(1200);
  });

  it('reads a section split over several retrieved parts once, in reading order, citing each part it quotes', async () => {
    const parts = chunksOf('how-to-steps-with-code', 120).filter((chunk) => chunk.heading === 'Install the plugin');
    expect(parts.length).toBeGreaterThan(1);
    const result = await answer('How do I install the plugin?', ranked([...parts].reverse()));
    const steps = positions(result.text, ['1. Add the package', '2. Register the plugin', '3. Restart the dev server']);
    expect(ascending(steps)).toBe(true);
    for (const step of ['1. Add the package', '2. Register the plugin', '3. Restart the dev server']) {
      expect(result.text.split(step).length).toBe(2);
    }
    expect(result.text).toMatch(/^From the docs, \*\*Installing the widget › Install the plugin\*\* (\[\d\])+:/);
    expect(result.text.split('\n')[0]).toContain(`[${parts.length}]`);
  });

  it('quotes a page opening that announces its sub-sections together with them, each under its heading', async () => {
    const result = await answer(
      'What are the house rules?',
      sections('announced-subsections', 'House rules', 'One store', 'Read-only state', 'Pure reducers'),
    );
    const order = positions(result.text, [
      'Three rules keep the store predictable:',
      '**One store**',
      'All state lives in one object tree',
      '**Read-only state**',
      '**Pure reducers**',
      'without side effects.',
    ]);
    expect(ascending(order)).toBe(true);
    expect(result.text.split('\n')[0]).toBe('From the docs, **House rules** [1][2][3][4]:');
  });

  it("answers a how-to that a guide's opening ranks first with the opening and the page's sections as linked steps", async () => {
    const opening: Chunk = {
      ...(chunksOf('definition')[0] as Chunk),
      headingPath: ['Add the widget'],
      heading: null,
      title: 'Add the widget',
      text: 'This guide adds the chat widget to an existing site and connects it to a server. Allow fifteen minutes.',
      part: 0,
    };
    const outline = [
      { heading: 'Install the plugin', url: '/docs/add#install-the-plugin' },
      { heading: 'Register it [optional]', url: '/docs/add#register-it-optional' },
      { heading: 'Start the server', url: '/docs/add#start-the-server' },
    ];
    const howTo = await answer('How do I add the chat widget to my site?', [{ number: 1, score: 1, chunk: opening, outline }]);
    const order = positions(howTo.text, [
      'From the docs, **Add the widget** [1]:',
      'This guide adds the chat widget',
      'The page goes on with:',
      '1. [Install the plugin](</docs/add#install-the-plugin>)',
      '2. [Register it \\[optional\\]](</docs/add#register-it-optional>)',
      '3. [Start the server](</docs/add#start-the-server>)',
    ]);
    expect(ascending(order)).toBe(true);
    // A question about what the page is quotes the opening alone.
    const concept = await answer('What is the chat widget?', [{ number: 1, score: 1, chunk: opening, outline }]);
    expect(concept.text).not.toContain('The page goes on with');
  });

  it('quotes a sub-section ranked first without the unrelated paragraphs of its parent section before it', async () => {
    const chunks = chunksOf('long-parent-with-subsection');
    const rollback = chunks.find((chunk) => chunk.heading === 'Rolling back');
    const parent = chunks.filter((chunk) => chunk.heading === 'Deploying').reverse();
    expect(rollback).toBeDefined();
    expect(parent.length).toBeGreaterThan(1);
    const result = await answer('How do I roll back a release?', ranked([rollback as Chunk, ...parent]));
    expect(result.text.startsWith('From the docs, **Operations guide › Rolling back** [1]:')).toBe(true);
    expect(
      ascending(positions(result.text, ['1. Find the previous release tag', 'acme deploy --tag v1.4.2', '3. Watch the health dashboard'])),
    ).toBe(true);
    expect(result.text).not.toContain('this paragraph explains');
  });

  it('quotes the next section when the best-ranked one only announces what it does not hold', async () => {
    const result = await answer('What are the house rules?', sections('announced-subsections', 'House rules', 'Pure reducers'));
    expect(result.text).not.toContain('Three rules keep the store predictable:');
    expect(result.text.startsWith('From the docs, **House rules › Pure reducers** [2]:')).toBe(true);
  });

  it('cites other sections that match the question after the quote, without quoting them', async () => {
    const result = await answer(
      'How do I install or uninstall the plugin?',
      sections('how-to-steps-with-code', 'Install the plugin', 'Uninstall'),
    );
    expect(result.text.trimEnd().split('\n').pop()).toBe('See also [2].');
    expect(result.text).not.toContain('Remove the plugin entry');
  });

  it('quotes the opening of the best-ranked section when no word of the question appears in the sources', async () => {
    const result = await answer('Tell me about quokkas', sections('definition', 'What is a thunk?'));
    expect(result.text).toContain('A thunk is a function that wraps an expression to delay its evaluation.');
    expect(result.text).toContain('[1]');
  });

  it('says plainly that nothing matched when there are no sources', async () => {
    const result = await answer('How do I add middleware?', []);
    expect(result.text).toBe(NOTHING_FOUND);
    expect(result.finish?.reason).toBe('no_answer');
  });

  it('in selection mode quotes the sentences of the selection that best match the question, without citations', async () => {
    const result = await answer('When does a memoised selector recompute?', [], fixture('selection'));
    expect(result.text.startsWith(SELECTION_INTRO)).toBe(true);
    expect(result.text).toContain('> A memoised selector recomputes only when its inputs change, which keeps rendering cheap.');
    expect(result.text).not.toMatch(/\[\d+\]/);
    expect(result.text.split('\n').filter((line) => line.startsWith('> ')).length).toBeLessThanOrEqual(3);
  });

  it('in selection mode quotes the start of the selection when the question shares no word with it', async () => {
    const result = await answer('Why?', [], fixture('selection'));
    expect(result.text.split('\n').find((line) => line.startsWith('> '))).toBe('> Selectors read derived data from the state.');
  });

  it('streams the answer in small pieces that join back to the whole text', async () => {
    const result = await answer('How do I install the plugin?', sections('how-to-steps-with-code', 'Install the plugin'));
    const pieces = result.events.filter((event) => event.type === 'text');
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(piece.type === 'text' && piece.text.trim().split(/\s+/).length).toBeLessThanOrEqual(4);
    expect(result.text).toContain('npm install @acme/chat-plugin');
  });

  it('stops streaming when the reader aborts', async () => {
    const controller = new AbortController();
    const result = await drain(
      model.stream(
        chatRequest({
          question: 'How do I install the plugin?',
          sources: sections('how-to-steps-with-code', 'Install the plugin'),
          signal: controller.signal,
        }),
      ),
      () => controller.abort(),
    );
    expect(result.error?.code).toBe('aborted');
    expect(result.events.filter((event) => event.type === 'text')).toHaveLength(1);
  });

  it('needs no start-up check', async () => {
    expect(model.provider).toBe('extractive');
    await expect(model.verify()).resolves.toBeUndefined();
  });
});
