/**
 * The Gemini stand-in in a process of its own, for bench-chat.ts: a real
 * Gemini endpoint is remote and costs the server nothing, so the stand-in must
 * not share a thread with the server or the load generator. Prints one JSON line
 * `{"url","apiKey"}` once listening, and stops on SIGTERM or SIGINT.
 */
import { startGeminiStandIn } from '@docs-chat/stand-ins';

const standIn = await startGeminiStandIn({ eventDelayMs: 0 });
process.stdout.write(`${JSON.stringify({ url: standIn.url, apiKey: standIn.apiKey })}\n`);
const stop = (): void => {
  void standIn.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
