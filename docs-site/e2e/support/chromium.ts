import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_MISSING_MESSAGE =
  "Chromium is not installed, so the end-to-end suite cannot run. Install Debian's package as root: " +
  '`apt-get update && apt-get install -y chromium` (.ci/run does this in CI; do not use `npx playwright install`), ' +
  'or point CHROMIUM_PATH at a Chromium binary.';

/** The Chromium binary: CHROMIUM_PATH, else `chromium` on the PATH. Throws how to install it when there is none. */
export function findChromium(): string {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!fs.existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist. ${CHROMIUM_MISSING_MESSAGE}`);
    return configured;
  }
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // `command -v` exits non-zero when there is none
  }
  throw new Error(CHROMIUM_MISSING_MESSAGE);
}

export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Debian Chromium with a throw-away profile, talking to nothing but 127.0.0.1. */
export async function launchChromium(
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<LaunchedChromium> {
  const executablePath = findChromium();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chat-e2e-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
