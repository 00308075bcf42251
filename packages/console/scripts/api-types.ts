/**
 * Writes `src/api-types.ts`, the console's types of the `/v1` API, from the OpenAPI document the
 * server serves at `GET /v1/openapi.json` (made from its route table and zod schemas), with
 * openapi-typescript. Run it after changing what the API answers:
 *
 *   npm run api-types -w @wardrik/console
 *
 * `packages/wardrik/test/console-api-types.test.ts` fails while the file differs from what this
 * writes from the current document, so the console never compiles against an API that is not the
 * server's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { AuthService, createApp, createWardrik, sqliteStore } from 'wardrik';

/** The generated file. */
export const API_TYPES_FILE = fileURLToPath(new URL('../src/api-types.ts', import.meta.url));

const HEADER = `/**
 * The \`/v1\` API's types, generated from the server's OpenAPI document by openapi-typescript.
 * Do not edit: run \`npm run api-types -w @wardrik/console\` (\`packages/console/scripts/api-types.ts\`).
 * \`src/types.ts\` names the ones the console uses.
 */

`;

/** The types of `document`, as the file holds them (formatted as the repository formats TypeScript). */
export async function apiTypesSource(document: object): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, { immutable: true, silent: true });
  return format(`${HEADER}${astToString(ast)}`);
}

/** The document a server of this checkout serves (an in-memory one, on a throwaway SQLite file). */
export async function servedDocument(): Promise<object> {
  const folder = mkdtempSync(join(tmpdir(), 'wardrik-api-types-'));
  const wardrik = await createWardrik({ store: sqliteStore(join(folder, 'wardrik.db')), agents: [] });
  try {
    const response = await createApp({ wardrik, auth: new AuthService(wardrik.store) }).request('/v1/openapi.json');
    if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return (await response.json()) as object;
  } finally {
    await wardrik.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Formats TypeScript with the repository's Biome settings. */
function format(source: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const result = spawnSync(process.execPath, [biome, 'format', `--stdin-file-path=${relative(root, API_TYPES_FILE)}`], {
    cwd: root,
    input: source,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr || result.error}`);
  return result.stdout;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(API_TYPES_FILE, await apiTypesSource(await servedDocument()));
  console.log(`wrote ${API_TYPES_FILE}`);
}
