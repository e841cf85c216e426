/**
 * The stand-ins' default answer: deterministic, and it cites exactly the
 * numbered sources (`[1]`, `[2]`, ...) that appeared in the prompt, so tests
 * can check that retrieval results reached the model and that citations map
 * back to them.
 */
export function groundedReply(promptText: string, question: string): string {
  const sources = [...new Set([...promptText.matchAll(/\[(\d{1,3})\]/g)].map((match) => Number(match[1])))].sort(
    (left, right) => left - right,
  );
  // The question's last line, without source markers, so the echo never adds citations of its own.
  const lastLine = question.trim().split('\n').pop() ?? '';
  const topic = lastLine
    .replace(/\[\d{1,3}\]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
  if (sources.length === 0) {
    return `I could not find anything about "${topic}" in the documentation I was given.`;
  }
  const cited = sources.map((source) => `[${source}]`).join('');
  return `Here is what the documentation says about "${topic}". The relevant sections are ${cited}, and this stand-in answer cites each of them ${cited}.`;
}

/** Splits a reply into stream pieces of a few words each, keeping the spaces so the pieces join back exactly. */
export function splitIntoPieces(text: string, wordsPerPiece = 3): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const pieces: string[] = [];
  for (let index = 0; index < words.length; index += wordsPerPiece) {
    pieces.push(words.slice(index, index + wordsPerPiece).join(''));
  }
  const leading = text.match(/^\s+/)?.[0];
  if (leading && pieces.length > 0) pieces[0] = leading + pieces[0];
  return pieces.length > 0 ? pieces : [text];
}
