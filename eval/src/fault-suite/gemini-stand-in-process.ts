/**
 * The Gemini stand-in in a process of its own for the load phase, so the
 * model's side costs neither the server nor the 200 readers a thread. Prints
 * `{"url","apiKey"}` once listening; stops on SIGTERM. argv[2]: milliseconds
 * between stream events (a paced stream keeps 200 readers really concurrent).
 */
import { startGeminiStandIn } from '@docs-chat/stand-ins';

const standIn = await startGeminiStandIn({ eventDelayMs: Number(process.argv[2] ?? 0), apiKey: process.argv[3] ?? 'load-phase-key' });
process.stdout.write(`${JSON.stringify({ url: standIn.url, apiKey: standIn.apiKey })}\n`);
process.once('SIGTERM', () => void standIn.close().then(() => process.exit(0)));
