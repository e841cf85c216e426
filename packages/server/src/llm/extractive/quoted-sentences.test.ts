import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeTerms } from '@docs-chat/core';
import { pickQuotes, splitSentences, toSentences } from './quoted-sentences.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '__fixtures__', 'extractive');

function fixture(name: string): string {
  return readFileSync(path.join(fixtures, `${name}.md`), 'utf8');
}

/** The quotes picked from numbered texts for a question, as `text [n]`. */
function quotesFor(question: string, texts: { text: string; heading?: string }[], limit = 4, perSource = 2): string[] {
  const sentences = texts.flatMap((entry, index) => toSentences(entry.text, index + 1, entry.heading ?? null));
  return pickQuotes(sentences, new Set(analyzeTerms(question)), limit, perSource).map(
    (sentence) => `${sentence.text} [${sentence.source}]`,
  );
}

describe('quoting the best sentences', () => {
  it("prefers the sentences of the best-ranked section whose heading names the question's topic over a common word matched lower down", () => {
    expect(
      quotesFor('How do I add my own synonyms?', [
        {
          heading: 'Adding your own synonyms',
          text: 'Write the synonyms into a text file, one group per line. Your groups add to the built-in list.',
        },
        { heading: 'Ranking', text: 'Each candidate adds up four signals to get its score.' },
        { heading: 'Installing the widget', text: 'This guide adds the widget to an existing site in a few minutes.' },
      ]),
    ).toEqual(['Write the synonyms into a text file, one group per line. [1]', 'Your groups add to the built-in list. [1]']);
  });

  it('quotes a few sentences at most, two per source, in the order of the sources', () => {
    const quotes = quotesFor('What do selectors, reducers, state and middleware do?', [
      { text: fixture('selection') },
      { text: fixture('reducers') },
      { text: fixture('store-setup') },
    ]);
    expect(quotes.length).toBeLessThanOrEqual(4);
    const citations = quotes.map((quote) => Number(/\[(\d+)\]$/.exec(quote)?.[1]));
    expect(citations).toEqual([...citations].sort((left, right) => left - right));
    for (const number of [1, 2, 3]) expect(citations.filter((cited) => cited === number).length).toBeLessThanOrEqual(2);
  });

  it('never quotes code blocks, nor table rows as raw pipes', () => {
    const quotes = quotesFor('Which store enhancer middleware should I use?', [{ text: fixture('code-and-table') }]);
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.join('\n')).not.toContain('createAppStore');
    expect(quotes.join('\n')).not.toContain('|');
  });

  it('reads a table row as the ingest stores it as one line named by the column headers', () => {
    expect(quotesFor('Which variable sets the Qdrant server address?', [{ text: fixture('stored-table') }])).toContain(
      'Variable: `QDRANT_URL`; Default: unset; Meaning: Address of the Qdrant server, used when `VECTOR_STORE` is `qdrant` [1]',
    );
  });

  it('never leaves a code span open when it cuts a long sentence, so the rest of the answer still renders', () => {
    const quote = splitSentences(fixture('long-table-row-with-code')).find((sentence) => sentence.includes('CORS_ORIGINS'));
    expect(quote).toBeDefined();
    expect(quote?.endsWith('…')).toBe(true);
    expect(quote).not.toContain('docs-chat serve');
    expect(((quote ?? '').match(/`/g) ?? []).length % 2).toBe(0);
  });

  it('does not end a sentence at a full stop inside a code span', () => {
    expect(splitSentences(fixture('full-stop-in-code-span'))).toEqual([
      'Set the prompt with `SYSTEM_PROMPT="Answer briefly. Cite sources."` before starting the server.',
      'Restart it afterwards.',
    ]);
  });

  it('keeps only the text of links, whose relative targets would break in the chat panel', () => {
    expect(splitSentences(fixture('links'))).toContain('Read the store setup guide before writing custom middleware.');
  });

  it('splits wrapped prose into sentences and leaves out headings, list markers and MDX lines', () => {
    expect(
      splitSentences(
        "import Tabs from '@theme/Tabs';\n\n## Install the package\n\n- First run the installer\n- Then restart the server.\n\nThis line is\nwrapped in the source. Short.\n<Tabs>\n> A quoted tip that matters.",
      ),
    ).toEqual(['First run the installer', 'Then restart the server.', 'This line is wrapped in the source.', 'A quoted tip that matters.']);
  });
});
