import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Output goes here (appended) so a failure can be read after the run. */
  logFile: string;
  timeoutMs: number;
}

function lastLines(file: string, count: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '(no output)';
  }
}

/** Runs a Node script to completion; rejects with the tail of its log when it fails or overruns. */
export function runNode(label: string, args: string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = fs.openSync(options.logFile, 'a');
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', log, log] });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fs.closeSync(log);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fs.closeSync(log);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${label} ${signal ? `was stopped by ${signal} (time limit ${options.timeoutMs} ms)` : `exited with code ${code}`}; last lines of ${options.logFile}:\n${lastLines(options.logFile, 30)}`,
          ),
        );
    });
  });
}

/** Starts a long-running Node process whose output goes to a log file. */
export function startNode(args: string[], options: Omit<RunOptions, 'timeoutMs'>): ChildProcess {
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', log, log] });
  child.on('exit', () => fs.closeSync(log));
  return child;
}

/** Stops a process started by startNode: SIGTERM, then SIGKILL after a grace period. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export { lastLines };
