/**
 * What kind of answer a question asks for, read from its wording alone: the
 * extractive model quotes a section's steps for a how-to, the section naming
 * the error for a troubleshooting question, and a section's opening for the
 * rest (what something is, why, whether, which).
 */
export type QuestionIntent = 'how-to' | 'troubleshooting' | 'concept';

/** Evidence of an error on its own: an exception name, a Node error code or errno, a stack frame, an `Error: ...` line. */
const STRONG_ERROR =
  /\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\bERR_[A-Z0-9_]+\b|\bE(?:NOENT|ADDRINUSE|ACCES|CONNREFUSED|CONNRESET|PIPE|PERM|TIMEDOUT|EXIST|ISDIR|NOTDIR|MFILE|NOTFOUND)\b|^\s*at \S.*:\d+(?::\d+)?\)?\s*$|(?:^|\s)(?:error|warning|ERR!?)(?::|\])\s/im;
/** Words of a reader describing something that goes wrong, as opposed to asking how to handle errors in general. */
const PROBLEM_WORDS =
  /\b(?:fails?|failed|failing|crash(?:es|ed|ing)?|broken|breaks|refuses?|refused|denied|can(?:no|')t|couldn't|won't|doesn't work|does not work|not working|stopped working|what'?s wrong|goes wrong|went wrong|throws?|thrown|stuck|hangs?|freezes?|timed out)\b/i;
const ERROR_WORD = /\b(?:errors?|exceptions?|warnings?)\b/i;
const CODE_NAME = /\b(?:[a-z]+(?:_[a-z]+)+|[45]\d\d)\b/;

const HOW_TO =
  /\b(?:how (?:do|can|could|should|would|might|must) (?:i|we|you|one)|how (?:am|are) (?:i|we) supposed to|how to|what (?:should|do) (?:i|we) (?:do|run)|steps? (?:to|for)|walk me through|(?:what'?s|what is|is there) (?:the |an? )?(?:best |quickest |easiest |simplest |right |recommended |proper )?way to|set(?:ting)? ?up|configure|install)\b/i;
const IMPERATIVE =
  /^(?:please\s+)?(?:show me how|install|add|configure|set|enable|disable|create|make|use|run|deploy|change|switch|connect|write|update|migrate|upgrade|remove|replace)\b/i;

export function classifyQuestion(question: string): QuestionIntent {
  if (STRONG_ERROR.test(question) || PROBLEM_WORDS.test(question) || (ERROR_WORD.test(question) && CODE_NAME.test(question)))
    return 'troubleshooting';
  if (HOW_TO.test(question) || IMPERATIVE.test(question.trim()) || /\bhow\?\s*$/i.test(question)) return 'how-to';
  return 'concept';
}
