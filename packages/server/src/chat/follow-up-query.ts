/**
 * Turns a follow-up ("and how do I configure it?") into a query that retrieval
 * can answer on its own, without asking a language model: when the message is
 * short, starts like a continuation or leans on a pronoun, the key terms of the
 * reader's previous question are added to it. A self-contained question is
 * searched as it is, so a change of topic is not dragged back to the old one.
 */
import type { ChatTurn } from '../llm/chat-model.js';

const REFERRING_WORD = /\b(it|its|it's|itself|that|this|these|those|them|they|their|there|one|ones|same|above|former|latter|he|she)\b/i;
const CONTINUATION = /^(and|but|also|or|so|then|what about|how about|why not|what else|anything else|more|example|examples|e\.g\.|same)\b/i;
const SHORT_FOLLOW_UP_WORDS = 5;
const MAX_CARRIED_TERMS = 8;

const STOP_WORDS = new Set(
  `a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being am do does did doing
  have has had having can could should would may might must will shall i me my we our you your he she it its they them their this that
  these those what which who whom whose when where why how not no yes so than too very just also only any some all each every more most
  other such own same there here up down out over under again further once please thanks thank use using used get gets getting want need
  make makes way ways work works thing things something anything explain tell show give know mean means example examples docs documentation`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/** Distinct words of a question that carry its topic, in order (identifiers like `createStore` kept whole). */
export function keyTerms(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}_$][\p{L}\p{N}_$.-]*[\p{L}\p{N}_$]|[\p{L}\p{N}]/gu) ?? [];
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase();
    if (lower.length < 3 || STOP_WORDS.has(lower) || /^\d+$/.test(lower) || seen.has(lower)) continue;
    seen.add(lower);
    terms.push(word);
  }
  return terms;
}

export function isFollowUp(message: string): boolean {
  const trimmed = message.trim();
  const wordCount = trimmed.split(/\s+/).length;
  return wordCount <= SHORT_FOLLOW_UP_WORDS || CONTINUATION.test(trimmed) || REFERRING_WORD.test(trimmed);
}

/** The text to search for: the message itself, or the message plus the previous question's key terms. */
export function retrievalQuery(message: string, history: readonly ChatTurn[]): string {
  const previousQuestion = [...history].reverse().find((turn) => turn.role === 'user');
  if (!previousQuestion || !isFollowUp(message)) return message;
  const present = new Set(keyTerms(message).map((term) => term.toLowerCase()));
  const carried = keyTerms(previousQuestion.content)
    .filter((term) => !present.has(term.toLowerCase()))
    .slice(0, MAX_CARRIED_TERMS);
  return carried.length === 0 ? message : `${message.trim()} ${carried.join(' ')}`;
}
