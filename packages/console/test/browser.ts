import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** A Chromium to drive, and what its process needs in its environment. */
export interface ChromiumBinary {
  readonly executablePath: string;
  /** Where it came from, for messages: `WARDRIK_CHROMIUM`, the machine, or @sparticuz/chromium. */
  readonly source: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Chromium on the machine: WARDRIK_CHROMIUM, else `chromium` or `chromium-browser` on the PATH. */
function machineChromium(): ChromiumBinary | undefined {
  const named = process.env['WARDRIK_CHROMIUM'];
  if (named) return { executablePath: named, source: 'WARDRIK_CHROMIUM' };
  for (const candidate of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('which', [candidate], { encoding: 'utf8' }).trim();
      if (found && existsSync(found)) return { executablePath: found, source: `the machine (${found})` };
    } catch {
      // not this one
    }
  }
  return undefined;
}

let shipped: Promise<ChromiumBinary> | undefined;

/**
 * The Chromium shipped in the npm package @sparticuz/chromium (a headless shell, its fonts and its
 * software GL, brotli-compressed), unpacked once into a folder of its own under the temp folder,
 * named by the package's version. Unpacked first into a fresh folder, then renamed into place: a
 * test run that unpacks it at the same time, or one that died half way, never leaves a partial
 * one to be used.
 */
function shippedChromium(): Promise<ChromiumBinary> {
  shipped ??= unpackShippedChromium();
  return shipped;
}

async function unpackShippedChromium(): Promise<ChromiumBinary> {
  // The package exports no ./package.json: its root is the folder above its build/index.js.
  const root = dirname(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const folder = join(tmpdir(), `wardrik-sparticuz-chromium-${version}`);
  const binary = (root: string): ChromiumBinary => ({
    executablePath: join(root, 'chromium'),
    source: `@sparticuz/chromium ${version} (${root})`,
    env: { FONTCONFIG_PATH: join(root, 'fonts') },
  });
  if (existsSync(join(folder, 'chromium'))) return binary(folder);

  const { inflate } = await import('@sparticuz/chromium');
  const archives = join(root, 'bin');
  const staging = mkdtempSync(join(tmpdir(), 'wardrik-sparticuz-unpacking-'));
  // inflate() unpacks into os.tmpdir(), which it reads before it returns its promise: pointing
  // TMPDIR at the staging folder around these synchronous calls sends the files there.
  const previous = process.env['TMPDIR'];
  process.env['TMPDIR'] = staging;
  let unpacking: Promise<unknown>[];
  try {
    unpacking = ['chromium.br', 'fonts.tar.br', 'swiftshader.tar.br'].map((name) => inflate(join(archives, name)));
  } finally {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
  }
  try {
    await Promise.all(unpacking);
    // Its fonts.conf names /tmp/fonts: this one names where they are now, and the machine's own.
    writeFileSync(join(staging, 'fonts', 'fonts.conf'), fontsConf(folder));
    renameSync(staging, folder);
  } catch (thrown) {
    rmSync(staging, { recursive: true, force: true });
    // Another test run put it in place first: use theirs.
    if (existsSync(join(folder, 'chromium'))) return binary(folder);
    throw new Error(`could not unpack the Chromium of @sparticuz/chromium ${version} into ${folder}`, {
      cause: thrown,
    });
  }
  return binary(folder);
}

function fontsConf(folder: string): string {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
    `  <dir>${join(folder, 'fonts', 'fonts')}</dir>`,
    `  <cachedir>${join(folder, 'fonts-cache')}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

/**
 * The Chromium the browser tests drive: WARDRIK_CHROMIUM, else the machine's (`which chromium`:
 * Debian's, which `.ci/run` uses where it is installed), else the one shipped in the npm package
 * @sparticuz/chromium (a devDependency), so that `npm test` needs no browser installed.
 *
 * @example
 * ```ts
 * const { executablePath, source } = await findChromium()
 * ```
 */
export async function findChromium(): Promise<ChromiumBinary> {
  return machineChromium() ?? (await shippedChromium());
}

/**
 * A headless Chromium on a fresh profile (a temp --user-data-dir, which Playwright takes as a
 * persistent context's folder); close() also removes the profile. Each page is a tab of its own,
 * with its own sessionStorage: two pages are two people signed in.
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const browser = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), 'wardrik-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      ...(browser.env ? { env: { ...process.env, ...browser.env } } : {}),
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
  } catch (thrown) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(
      `Chromium from ${browser.source} did not start: install one (apt-get install -y chromium) or name one with WARDRIK_CHROMIUM`,
      { cause: thrown },
    );
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
