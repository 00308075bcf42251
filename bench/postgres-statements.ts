// Counts the statements a process sends to PostgreSQL through `pg` (bench/postgres.ts and its node
// processes): pg.Client.prototype.query is wrapped, so every client counts, pooled ones included.
import pg from 'pg';

/** One statement name's count and total time (ms from `query()` to its promise settling). */
export interface StatementEntry {
  count: number;
  ms: number;
}

/** Statements sent, by prepared statement name (or the text's first words). */
export const statements = new Map<string, StatementEntry>();

function statementName(config: unknown): string {
  if (typeof config === 'string') return config.trim().replace(/\s+/g, ' ').slice(0, 48);
  const { name, text } = (config ?? {}) as { name?: string; text?: string };
  return name ?? (text ?? '?').trim().replace(/\s+/g, ' ').slice(0, 48);
}

let installed = false;

/** Starts counting (once per process; before the clients to count send anything). */
export function countStatements(): void {
  if (installed) return;
  installed = true;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const name = statementName(args[0]);
    const entry = statements.get(name) ?? { count: 0, ms: 0 };
    statements.set(name, entry);
    entry.count += 1;
    const began = performance.now();
    const result = query.apply(this, args);
    if (result instanceof Promise) {
      result.then(
        () => {
          entry.ms += performance.now() - began;
        },
        () => {},
      );
    }
    return result;
  };
}

/** A copy of the counts so far. */
export function statementSnapshot(): Map<string, StatementEntry> {
  return new Map([...statements].map(([name, entry]) => [name, { ...entry }]));
}

/** What was sent between two snapshots, all names together. */
export function statementDelta(
  before: ReadonlyMap<string, StatementEntry>,
  after: ReadonlyMap<string, StatementEntry>,
): StatementEntry {
  const total = { count: 0, ms: 0 };
  for (const [name, entry] of after) {
    const was = before.get(name) ?? { count: 0, ms: 0 };
    total.count += entry.count - was.count;
    total.ms += entry.ms - was.ms;
  }
  return total;
}
