import { isAbsolute, resolve } from 'node:path';
import { loadConfig } from '../../config/load-config.js';
import { describeStore } from '../../config/store-setting.js';
import { StoreError } from '../../errors.js';
import { backupSqlite } from '../../store/sqlite/backup.js';
import { SqliteStore } from '../../store/sqlite/sqlite-store.js';
import { CliError, EXIT } from '../cli-error.js';
import type { Parsed } from '../command.js';
import { flag, positionals, stringOption } from '../command.js';
import { print, printJson } from '../output.js';
import { BACKUP_HELP as backup } from './backup-help.js';

/** Runs `wardrik backup FILE` (loaded when the command runs). */
export async function runBackup(parsed: Parsed): Promise<number> {
  const [file] = positionals(backup, parsed, ['FILE']) as [string];
  const destination = isAbsolute(file) ? file : resolve(process.cwd(), file);
  const source = await sqlitePath(stringOption(parsed, 'config'), stringOption(parsed, 'store'));
  let made: Awaited<ReturnType<typeof backupSqlite>>;
  try {
    made = await backupSqlite(source, destination);
  } catch (cause) {
    if (StoreError.isInstance(cause)) throw new CliError(EXIT.failed, cause.message, { cause });
    throw cause;
  }
  if (flag(parsed, 'json')) printJson({ source, ...made });
  else {
    print(
      `Backed ${source} up to ${made.path}: ${made.runs} run${made.runs === 1 ? '' : 's'}, ${made.bytes} bytes, schema version ${made.schemaVersion}.`,
    );
  }
  return EXIT.ok;
}

/** The SQLite file to copy: --store PATH, else the config's store (which must be SQLite). */
async function sqlitePath(configOption: string | undefined, storeOption: string | undefined): Promise<string> {
  if (storeOption !== undefined && !/^postgres(ql)?:\/\//i.test(storeOption)) {
    return isAbsolute(storeOption) ? storeOption : resolve(process.cwd(), storeOption);
  }
  const config = await loadConfig(configOption, process.cwd(), { store: storeOption });
  const store = config.store;
  await store.close().catch(() => {});
  if (store instanceof SqliteStore) return store.path;
  throw new CliError(
    EXIT.failed,
    `the store is ${describeStore(store)}: wardrik backup copies a SQLite store; back PostgreSQL up with pg_dump (see the README's Operations)`,
  );
}
