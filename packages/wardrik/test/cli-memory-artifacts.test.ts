/*
 * `wardrik artifacts` (upload, list, download byte for byte, versions, delete, refusals) and
 * `wardrik memory` (add a session, search), as spawned processes of the built bin against a real
 * `wardrik serve` of test/fixtures/cli-config.mjs.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cli, type Spawned, startServe, stopServe, tmpRoot } from './cli-process.js';

let directory: string;
let server: Spawned | undefined;
let url = '';
let session = '';
let token = '';

beforeAll(async () => {
  await buildCli();
  directory = mkdtempSync(join(tmpRoot, 'cli-artifacts-'));
  copyFileSync(new URL('./fixtures/cli-config.mjs', import.meta.url), join(directory, 'wardrik.config.mjs'));
  ({ server, url } = await startServe(directory));
  token = readFileSync(join(directory, '.wardrik', 'admin-token'), 'utf8').trim();
  const created = await fetch(`${url}/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'shop' }),
  });
  session = ((await created.json()) as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await stopServe(server);
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const run = (args: readonly string[], command = 'artifacts') =>
  cli([command, ...args], { cwd: directory, env: { WARDRIK_URL: url } });

describe('wardrik artifacts', () => {
  it('puts files as versions, lists them, gets each back byte for byte, and deletes them', async () => {
    const bytes = randomBytes(300_000);
    writeFileSync(join(directory, 'scan.pdf'), bytes);
    const put = await run(['put', session, 'scan.pdf', '--labels', 'outside']);
    expect(put.code).toBe(0);
    expect(put.stdout).toContain('Saved scan.pdf version 1 (application/pdf, 300000 bytes).');
    writeFileSync(join(directory, 'notes'), 'second');
    expect((await run(['put', session, 'notes', '--name', 'scan.pdf', '--type', 'application/pdf'])).code).toBe(0);

    const listed = await run([session]);
    expect(listed.stdout).toMatch(/NAME\s+VERSION\s+TYPE\s+SIZE\s+LABELS/);
    expect(listed.stdout).toMatch(/scan\.pdf\s+2\s+application\/pdf\s+6\s+-/);
    const versions = await run(['versions', session, 'scan.pdf', '--json']);
    expect(JSON.parse(versions.stdout).map((each: { labels: string[] }) => each.labels)).toEqual([['outside'], []]);

    const got = await run(['get', session, 'scan.pdf', '--version', '1', '--out', 'back.pdf']);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('Wrote scan.pdf version 1 (application/pdf, 300000 bytes) to back.pdf.');
    expect(got.stdout).toContain('It carries: outside.');
    expect(readFileSync(join(directory, 'back.pdf')).equals(bytes)).toBe(true);
    // Without --out it will not overwrite the file it would write.
    const clash = await run(['get', session, 'scan.pdf']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('scan.pdf exists already');

    expect((await run(['delete', session, 'scan.pdf'])).stdout).toContain('Deleted every version of scan.pdf.');
    const gone = await run(['get', session, 'scan.pdf', '--out', '-']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('has no artifact "scan.pdf"');
  });

  it('refuses path tricks, unknown media types and bad options with clear errors', async () => {
    writeFileSync(join(directory, 'x.txt'), 'x');
    const tricked = await run(['put', session, 'x.txt', '--name', '../../etc/passwd']);
    expect(tricked.code).toBe(1);
    expect(tricked.stderr).toContain('an artifact name is a file name, not a path');
    writeFileSync(join(directory, 'blob.weird'), 'x');
    const untyped = await run(['put', session, 'blob.weird']);
    expect(untyped.code).toBe(2);
    expect(untyped.stderr).toContain('give --type');
    const version = await run(['get', session, 'x.txt', '--version', 'zero']);
    expect(version.code).toBe(2);
    expect(version.stderr).toContain('--version expects a version number');
    const missing = await run(['put', session, 'nope.txt']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read nope.txt');
    expect((await run([])).code).toBe(2);
  });
});

describe('wardrik memory', () => {
  it('adds a session, then finds what was said with the labels of its moment', async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'shop', input: 'please refund order A1', session, wait: true }),
    });
    expect(((await started.json()) as { status: string }).status).toBe('parked');
    const added = await run(['add', session], 'memory');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added 3 new memories from session');
    expect((await run(['add', session], 'memory')).stdout).toContain('Added 0 new memories');

    const found = await run(['search', 'shop', 'wiping', '--json'], 'memory');
    expect(
      JSON.parse(found.stdout).map((each: { text: string; labels: string[] }) => [each.text, each.labels]),
    ).toEqual([['Wiping and refunding.', ['outside']]]);
    const shown = await run(['search', 'shop', 'refund', 'order'], 'memory');
    expect(shown.stdout).toMatch(/SAID\s+BY\s+LABELS\s+SESSION\s+TEXT/);
    expect(shown.stdout).toContain('please refund order A1');
    const empty = await run(['search', 'shop', '?!'], 'memory');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('holds no word to search for');
    expect((await run(['search', 'shop'], 'memory')).code).toBe(2);
    expect((await run(['search', 'shop', 'tea', '--limit', '99'], 'memory')).code).toBe(2);
  });
});
