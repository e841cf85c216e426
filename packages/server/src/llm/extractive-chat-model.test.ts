import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContextSource } from './chat-model.js';
import { createChatModel } from './chat-model.js';
import { chatRequest, drain } from './chat-model-test-support.js';
import {
  NO_MODEL_NOTHING_FOUND,
  NO_MODEL_SELECTION_INTRO,
  NO_MODEL_SOURCES_INTRO,
  splitSentences,
} from './extractive-chat-model.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'extractive');

function fixture(name: string): string {
  return readFileSync(path.join(fixtures, `${name}.md`), 'utf8');
}

function source(number: number, name: string): ContextSource {
  const text = fixture(name);
  return {
    number,
    score: 1 / number,
    chunk: {
      id: `chunk-${name}`,
      file: `${name}.md`,
      docId: name,
      title: name,
      heading: null,
      headingPath: [name],
      depth: 1,
      anchor: null,
      url: `/docs/${name}`,
      pageUrl: `/docs/${name}`,
      part: 0,
      text,
      indexText: text,
      tokens: 100,
      hash: name,
      fileHash: name,
      order: 0,
    },
  };
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

function quotedLines(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('> '));
}

describe('the extractive chat model (no language model configured)', () => {
  it('says first that no language model is configured, then quotes the source that holds the question terms with its citation', async () => {
    const result = await answer('How do I add middleware to the store?', [source(1, 'reducers'), source(2, 'store-setup')]);
    expect(result.error).toBeUndefined();
    expect(result.text.startsWith(NO_MODEL_SOURCES_INTRO)).toBe(true);
    const quotes = quotedLines(result.text);
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.every((line) => line.endsWith(' [2]'))).toBe(true);
    expect(result.text).toContain('> To add middleware, list it in the options you give to the store factory. [2]');
    expect(result.text).not.toContain('[1]');
    expect(result.finish).toEqual({ type: 'finish', reason: 'stop', usage: null });
  });

  it("prefers the sentences of the best-ranked section whose heading names the question's topic over a common word matched lower down", async () => {
    const section = (number: number, heading: string, text: string): ContextSource => {
      const base = source(number, 'reducers');
      return { ...base, chunk: { ...base.chunk, id: `chunk-${number}`, heading, headingPath: ['Guide', heading], text, indexText: text } };
    };
    const result = await answer('How do I add my own synonyms?', [
      section(1, 'Adding your own synonyms', 'Write the synonyms into a text file, one group per line. Your groups add to the built-in list.'),
      section(2, 'Ranking', 'Each candidate adds up four signals to get its score.'),
      section(3, 'Installing the widget', 'This guide adds the widget to an existing site in a few minutes.'),
    ]);
    const quotes = quotedLines(result.text);
    expect(quotes).toEqual(['> Write the synonyms into a text file, one group per line. [1]', '> Your groups add to the built-in list. [1]']);
  });

  it('quotes a few passages at most, two per source, in the order of the sources', async () => {
    const result = await answer('What do the store, reducers, state and middleware do?', [
      source(1, 'store-setup'),
      source(2, 'reducers'),
      source(3, 'code-and-table'),
    ]);
    const quotes = quotedLines(result.text);
    expect(quotes.length).toBeLessThanOrEqual(4);
    const citations = quotes.map((line) => Number(/\[(\d+)\]$/.exec(line)?.[1]));
    expect(citations).toEqual([...citations].sort((left, right) => left - right));
    for (const number of [1, 2, 3]) expect(citations.filter((cited) => cited === number).length).toBeLessThanOrEqual(2);
    // Every quote is a sentence of the source it cites.
    for (const line of quotes) {
      const cited = Number(/\[(\d+)\]$/.exec(line)?.[1]);
      const name = ['store-setup', 'reducers', 'code-and-table'][cited - 1] ?? '';
      expect(fixture(name).replace(/\s+/g, ' ')).toContain(line.slice(2).replace(/ \[\d+\]$/, ''));
    }
  });

  it('never quotes code blocks, nor table rows as raw pipes', async () => {
    const result = await answer('Which store enhancer middleware should I use?', [source(1, 'code-and-table')]);
    expect(result.text).not.toContain('createAppStore');
    expect(result.text).not.toContain('|');
    expect(result.text).toContain('[1]');
  });

  it('quotes a table row as the ingest stores it as one readable line named by the column headers, not as raw pipes', async () => {
    const result = await answer('Which variable sets the Qdrant server address?', [source(1, 'stored-table')]);
    expect(result.text).toContain('> Variable: `QDRANT_URL`; Default: unset; Meaning: Address of the Qdrant server, used when `VECTOR_STORE` is `qdrant` [1]');
    expect(result.text).not.toContain('|');
    expect(result.text).not.toContain('Variable | Default');
  });

  it('never leaves a code span open when it cuts a long quote, so the rest of the answer still renders', async () => {
    const result = await answer('Which origins may call the API from a browser?', [source(1, 'long-table-row-with-code')]);
    const quote = quotedLines(result.text).find((line) => line.includes('CORS_ORIGINS'));
    expect(quote).toBeDefined();
    expect(quote).toContain('… [1]');
    expect(quote).not.toContain('docs-chat serve');
    expect(((quote ?? '').match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('does not end a sentence at a full stop inside a code span', () => {
    expect(splitSentences(fixture('full-stop-in-code-span'))).toEqual([
      'Set the prompt with `SYSTEM_PROMPT="Answer briefly. Cite sources."` before starting the server.',
      'Restart it afterwards.',
    ]);
  });

  it('keeps only the text of links, whose relative targets would break in the chat panel', async () => {
    const result = await answer('Where do I read about custom middleware?', [source(1, 'links')]);
    expect(result.text).toContain('> Read the store setup guide before writing custom middleware. [1]');
    expect(result.text).not.toContain('](');
  });

  it('quotes the openings of the top sources when no word of the question appears in them', async () => {
    const result = await answer('Tell me about quokkas', [source(1, 'store-setup'), source(2, 'reducers'), source(3, 'unrelated')]);
    expect(result.text.startsWith(NO_MODEL_SOURCES_INTRO)).toBe(true);
    expect(quotedLines(result.text)).toEqual([
      '> A store holds the whole state tree of your application. [1]',
      '> Reducers are pure functions that take the current state and an action, and return the next state. [2]',
    ]);
  });

  it('says plainly that nothing matched when there are no sources', async () => {
    const result = await answer('How do I add middleware?', []);
    expect(result.text).toBe(NO_MODEL_NOTHING_FOUND);
    expect(result.finish?.reason).toBe('no_answer');
  });

  it('in selection mode quotes the sentences of the selection that best match the question, without citations', async () => {
    const result = await answer('When does a memoised selector recompute?', [], fixture('selection'));
    expect(result.text.startsWith(NO_MODEL_SELECTION_INTRO)).toBe(true);
    expect(result.text).toContain('> A memoised selector recomputes only when its inputs change, which keeps rendering cheap.');
    expect(result.text).not.toMatch(/\[\d+\]/);
    expect(quotedLines(result.text).length).toBeLessThanOrEqual(3);
  });

  it('in selection mode quotes the start of the selection when the question shares no word with it', async () => {
    const result = await answer('Why?', [], fixture('selection'));
    expect(quotedLines(result.text)[0]).toBe('> Selectors read derived data from the state.');
  });

  it('streams the answer in small pieces that join back to the whole text', async () => {
    const result = await answer('How do I add middleware to the store?', [source(1, 'store-setup')]);
    const pieces = result.events.filter((event) => event.type === 'text');
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(piece.type === 'text' && piece.text.trim().split(/\s+/).length).toBeLessThanOrEqual(4);
  });

  it('stops streaming when the reader aborts', async () => {
    const controller = new AbortController();
    const result = await drain(
      model.stream(chatRequest({ question: 'How do I add middleware?', sources: [source(1, 'store-setup')], signal: controller.signal })),
      () => controller.abort(),
    );
    expect(result.error?.code).toBe('aborted');
    expect(result.events.filter((event) => event.type === 'text')).toHaveLength(1);
  });

  it('needs no start-up check', async () => {
    expect(model.provider).toBe('extractive');
    await expect(model.verify()).resolves.toBeUndefined();
  });

  it('splits wrapped prose into sentences and leaves out headings, list markers and MDX lines', () => {
    expect(
      splitSentences(
        "import Tabs from '@theme/Tabs';\n\n## Install the package\n\n- First run the installer\n- Then restart the server.\n\nThis line is\nwrapped in the source. Short.\n<Tabs>\n> A quoted tip that matters.",
      ),
    ).toEqual(['First run the installer', 'Then restart the server.', 'This line is wrapped in the source.', 'A quoted tip that matters.']);
  });
});
