/**
 * The Gemini stand-in in a child process (bench-gemini-stand-in.ts), for the benchmarks that must not share a
 * thread with it: starts it and reads the address it prints.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function startStandInProcess(): Promise<{ url: string; apiKey: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./bench-gemini-stand-in.ts', import.meta.url))], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline !== -1) resolve(buffered.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`the Gemini stand-in exited (${code})`)));
  });
  const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
  return {
    url,
    apiKey,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
