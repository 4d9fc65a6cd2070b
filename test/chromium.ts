// Headless Chromium for the browser tests and benchmarks: Debian's /usr/bin/chromium (or
// REVLOOP_CHROMIUM) through playwright-core, which never downloads a browser. One owner for the
// launch, so every suite and bench (bench/report.ts, bench/viewer.ts) starts it the same way and a
// failed start says why.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.REVLOOP_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests skip here, or undefined when Chromium is installed. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set REVLOOP_CHROMIUM)`;

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

const ATTEMPTS = 3;

/**
 * Launches headless Chromium with a fresh profile. A start that fails is retried with a new
 * profile (twice at most): a browser started on a freshly installed, loaded machine has been seen to
 * fail its first start, and a test of the page should not fail for that. Every failed attempt's
 * error goes to stderr, and the last one is thrown.
 */
export async function launchChromium(viewport = { width: 1280, height: 720 }): Promise<Chromium> {
  const { chromium } = await import('playwright-core');
  for (let attempt = 1; ; attempt++) {
    const profile = mkdtempSync(join(tmpdir(), 'revloop-chromium-'));
    try {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport,
        timeout: 120_000,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      return {
        context,
        async close() {
          await context.close().catch(() => {});
          rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
        },
      };
    } catch (error) {
      rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
      process.stderr.write(`Chromium start ${attempt} of ${ATTEMPTS} failed: ${(error as Error).stack ?? String(error)}\n`);
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}
