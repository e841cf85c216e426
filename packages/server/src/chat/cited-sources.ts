/**
 * Which sources an answer actually used: the `[n]` citations it contains, in
 * order of first citation. An answer that cites nothing keeps every retrieved
 * source, so the reader can still check where it came from.
 */
import type { SourceRef } from '@docs-chat/core/protocol';

export function citedNumbers(answer: string): number[] {
  const numbers: number[] = [];
  // Matches [1], [1][2] and [1, 2] forms.
  for (const match of answer.matchAll(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g)) {
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
