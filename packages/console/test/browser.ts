import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it), or WARDRIK_CHROMIUM. */
export function chromiumPath(): string {
  const named = process.env['WARDRIK_CHROMIUM'];
  if (named) return named;
  for (const candidate of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('which', [candidate], { encoding: 'utf8' }).trim();
      if (found && existsSync(found)) return found;
    } catch {
      // not this one
    }
  }
  throw new Error('Chromium is not installed: apt-get update && apt-get install -y chromium (or set WARDRIK_CHROMIUM)');
}

/**
 * A headless Chromium on a fresh profile (a temp --user-data-dir, which Playwright takes as a
 * persistent context's folder); close() also removes the profile. Each page is a tab of its own,
 * with its own sessionStorage: two pages are two people signed in.
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'wardrik-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    viewport: { width: 1100, height: 900 },
    args: [
      '--headless',
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
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
