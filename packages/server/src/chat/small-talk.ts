/**
 * Greetings, thanks and goodbyes get a friendly fixed reply: searching the docs
 * for "thanks!" would only produce an out-of-scope answer or, worse, a made-up one.
 * Only whole messages that are nothing but small talk count; "hi, how do I
 * configure the store?" is a question.
 */
export type SmallTalkKind = 'greeting' | 'thanks' | 'goodbye';

const PATTERNS: [SmallTalkKind, RegExp][] = [
  [
    'greeting',
    /^(hi|hello|hey|hiya|howdy|yo|greetings|good (morning|afternoon|evening|day)|hey there|hi there|hello there|bonjour|hola|hallo)( (bot|there|everyone|all|docs chat|assistant))?$/,
  ],
  [
    'thanks',
    /^((ok|okay|great|cool|perfect|awesome|nice|got it|that helps|that helped)( )?)*(thanks|thank you|thank you so much|thanks a lot|many thanks|thx|ty|cheers|much appreciated|merci|danke|gracias)( (a lot|so much|very much|again|for (the|your) help))?$/,
  ],
  ['goodbye', /^(bye|goodbye|bye bye|see you|see ya|cya|that is all|thats all)( (for now|then|later))?$/],
];

const REPLIES: Record<SmallTalkKind, string> = {
  greeting: 'Hello! Ask me anything about this documentation and I will answer with links to the sections I used.',
  thanks: "You're welcome! Ask another question whenever you like.",
  goodbye: 'Goodbye! Come back whenever you have another question about the docs.',
};

/** The kind of small talk the whole message is, or null for anything that may be a question. */
export function detectSmallTalk(message: string): SmallTalkKind | null {
  const normalised = message
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (normalised.length === 0 || normalised.length > 60) return null;
  for (const [kind, pattern] of PATTERNS) if (pattern.test(normalised)) return kind;
  return null;
}

export function smallTalkReply(kind: SmallTalkKind): string {
  return REPLIES[kind];
}
