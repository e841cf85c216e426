/**
 * What a question asks versus what it pastes. Readers paste error messages,
 * stack traces and code into their questions; the pasted part holds names
 * worth searching for (an exception, a function) but says nothing about
 * whether the docs cover the question, and its many identifiers would read as
 * "words the docs lack" to the out-of-scope check. This module splits the two
 * and condenses a long question for search: the question sentences, the error
 * line and the names, without the rest of the paste.
 */

export interface QuestionParts {
  /** The reader's own prose: what the question asks (the whole question when it is all paste). */
  asked: string;
  /** True when the question holds no prose of its own: an error message or a log pasted alone. */
  onlyPasted: boolean;
  /** Code fences, inline code, stack frames and log lines, in order. */
  pasted: string[];
  /** The first line of the paste that reads as an error message ("TypeError: x is not a function"). */
  errorLine: string | null;
  /** Identifiers and exception names found in the paste or in code spans, in order of appearance, once each. */
  names: string[];
}

const FENCE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;
const INLINE_CODE = /`([^`\n]+)`/g;
/** A stack frame ("at fn (file.js:12:3)", "File \"x.py\", line 3"), a log prefix, or a line mostly of symbols. */
const PASTED_LINE =
  /^\s*(at\s+\S|File\s+"|Traceback|\s*\^+\s*$|\d{4}-\d\d-\d\d[T ]\d\d:|\[(?:ERROR|WARN|INFO|DEBUG)\]|npm ERR!|ERR_|[A-Za-z]:\\|\/[\w.-]+\/[\w./-]+:\d+)/;
const ERROR_LINE =
  /\b([A-Z]\w*(?:Error|Exception)|Uncaught|Error|Warning|ERR_[A-Z_]+|failed|cannot|can't|not defined|not a function|undefined|denied|refused|timed out)\b/;
/** camelCase, PascalCase with an inner capital, snake_case, dotted member access, or an Error/Exception name. */
const IDENTIFIER =
  /\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[a-z]\w*_\w+|[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*|[A-Z]\w*(?:Error|Exception))\b/g;

function symbolShare(line: string): number {
  const visible = line.replace(/\s/g, '');
  if (visible.length === 0) return 0;
  const symbols = visible.replace(/[\p{L}\p{N}]/gu, '').length;
  return symbols / visible.length;
}

/**
 * An error message line as a runtime prints it: "TypeError: ...", "Uncaught Error: ...", "Warning: ...", also
 * behind the name of the program that printed it ("docs-chat ingest: Error: EACCES: ...", "node: Error: ...").
 */
const MESSAGE_LINE = /^\s*([\w@./-]+( [\w-]+)?:\s+)?(Uncaught\s+)?(\w+\.)*\w*(Error|Exception|Warning|Fault)(\s*\[\w+\])?:\s/;

/** A prose line, or a line pasted from a terminal, a log or a source file. */
function isPastedLine(line: string): boolean {
  if (PASTED_LINE.test(line) || MESSAGE_LINE.test(line)) return true;
  // Code: statements, braces, arrows, assignments.
  if (/[;{}]\s*$|=>|^\s*(const|let|var|import|export|function|return|if|def|class)\s/.test(line) && symbolShare(line) > 0.08) return true;
  return symbolShare(line) > 0.3 && line.trim().length > 8;
}

export function splitQuestion(question: string): QuestionParts {
  const pasted: string[] = [];
  let prose = question.replace(FENCE, (_match, code: string) => {
    pasted.push(code);
    return '\n';
  });
  const inline: string[] = [];
  prose = prose.replace(INLINE_CODE, (_match, code: string) => {
    inline.push(code);
    // A short code span is part of the sentence ("what does `combineReducers` do?"): keep its words.
    return code.length <= 40 ? code : ' ';
  });
  const proseLines: string[] = [];
  for (const line of prose.split('\n')) {
    if (line.trim() !== '' && isPastedLine(line)) pasted.push(line);
    else proseLines.push(line);
  }
  const asked = proseLines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const errorSource = [...pasted.flatMap((block) => block.split('\n')), ...asked.split('\n')];
  const errorLine =
    errorSource.map((line) => line.trim()).find((line) => line.length > 0 && ERROR_LINE.test(line) && !/^\s*at\s/.test(line)) ?? null;
  const names: string[] = [];
  for (const text of [...pasted, ...inline, errorLine ?? '']) {
    for (const match of text.matchAll(IDENTIFIER)) if (!names.includes(match[0])) names.push(match[0]);
  }
  return { asked: asked === '' ? question.trim() : asked, onlyPasted: asked === '' && pasted.length > 0, pasted, errorLine, names };
}

/**
 * A question short enough to search with: unchanged when it fits `maxChars`,
 * else its question sentences (those ending in "?", or the last sentences when
 * none does), the error line and the names from the paste, each cut to fit.
 */
export function condenseQuestion(question: string, maxChars: number): string {
  const trimmed = question.trim();
  if (trimmed.length <= maxChars) return trimmed;
  const parts = splitQuestion(trimmed);
  const sentences = parts.asked
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
  const asking = sentences.filter((sentence) => sentence.endsWith('?'));
  const kept: string[] = [];
  let used = 0;
  const take = (text: string, budget: number): void => {
    if (kept.includes(text)) return;
    const piece = text.length > budget ? text.slice(0, Math.max(0, budget)).replace(/\s+\S*$/, '') : text;
    if (piece.trim() === '' || used + piece.length + 1 > maxChars) return;
    kept.push(piece);
    used += piece.length + 1;
  };
  // The asking sentences first, then the context sentences nearest to them (the end of the prose).
  for (const sentence of asking) take(sentence, Math.floor(maxChars / 2));
  if (parts.errorLine) take(parts.errorLine, 300);
  const names = parts.names.join(' ');
  if (names) take(names, 400);
  for (const sentence of [...sentences].reverse()) {
    if (!asking.includes(sentence) && !kept.includes(sentence)) take(sentence, maxChars - used - 1);
  }
  return kept.join('\n');
}
