/**
 * Which sources an answer actually used: the `[n]` citations it contains, in
 * order of first citation. An answer that cites nothing keeps every retrieved
 * source, so the reader can still check where it came from.
 *
 * Citations are read the way the widget renders them: `[n]` inside code (a
 * fenced block or a code span, as in `items[1]`), escaped as `\[n]`, or
 * followed by `(` (a link) is not a citation. The widget pairs the sources of
 * a finished answer with its citations in order of first appearance, so both
 * sides must read the same ones.
 */
import type { SourceRef } from '@docs-chat/core/protocol';

/** The answer without its fenced code blocks and code spans. */
function outsideCode(answer: string): string {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of answer.split('\n')) {
    const marker = /^\s*(?:>\s*)*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (
      fence !== null &&
      marker &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.trim().replace(/^(?:>\s*)*/, '') === marker
    )
      fence = null;
    else if (fence === null) lines.push(line.replace(/(`+)[\s\S]*?\1/g, ''));
  }
  return lines.join('\n');
}

export function citedNumbers(answer: string): number[] {
  const numbers: number[] = [];
  // Matches [1], [1][2] and [1, 2] forms.
  for (const match of outsideCode(answer).matchAll(/(?<!\\)\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/g)) {
    for (const part of (match[1] ?? '').split(',')) {
      const value = Number(part.trim());
      if (!numbers.includes(value)) numbers.push(value);
    }
  }
  return numbers;
}

export function sourcesUsedByAnswer(answer: string, numbered: readonly { number: number; source: SourceRef }[]): SourceRef[] {
  const byNumber = new Map(numbered.map((entry) => [entry.number, entry.source]));
  const cited = citedNumbers(answer)
    .map((value) => byNumber.get(value))
    .filter((source): source is SourceRef => source !== undefined);
  return cited.length > 0 ? cited : numbered.map((entry) => entry.source);
}
