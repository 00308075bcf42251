import { isAbsolute, join } from 'node:path';
import { PostgresStore, postgresStore } from '../store/postgres/postgres-store.js';
import { SqliteStore, sqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { ConfigError } from './config-error.js';

/** PostgreSQL for many nodes: a connection URL, or one with settings of its own. */
export type PostgresSetting =
  | string
  | { readonly url: string; readonly schema?: string; readonly synchronousCommit?: boolean };

/**
 * Where a config keeps its runs: a `Store` made in code, `{ postgres: url }` (many nodes on one
 * PostgreSQL), or `{ sqlite: path }` (one process; a path relative to the config file).
 */
export type StoreSetting = Store | { readonly postgres: PostgresSetting } | { readonly sqlite: string };

/**
 * The store to use: `override` (`wardrik serve --store …`) first, then the config's `store`, then
 * `WARDRIK_DATABASE_URL`, else the default SQLite file next to the config. A text names
 * PostgreSQL when it starts with `postgres://` or `postgresql://`, and a SQLite file otherwise.
 */
export function resolveStore(options: {
  readonly setting: StoreSetting | undefined;
  readonly override?: string | undefined;
  readonly environment?: NodeJS.ProcessEnv;
  /** The config file's directory: relative SQLite paths are under it. */
  readonly directory: string;
  readonly defaultPath: string;
}): { readonly store: Store; readonly isDefault: boolean } {
  const { setting, override, directory } = options;
  if (override !== undefined) return { store: storeFromText(override, directory, '--store'), isDefault: false };
  if (setting !== undefined) return { store: openSetting(setting, directory), isDefault: false };
  const url = (options.environment ?? process.env).WARDRIK_DATABASE_URL;
  if (url) return { store: storeFromText(url, directory, 'WARDRIK_DATABASE_URL'), isDefault: false };
  return { store: sqliteStore(options.defaultPath), isDefault: true };
}

/** A store named by text: a PostgreSQL URL, or a SQLite file path. */
export function storeFromText(text: string, directory: string, where: string): Store {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ConfigError(`${where}: expected a postgres:// URL or a SQLite file path`);
  }
  if (/^postgres(ql)?:\/\//i.test(text)) return postgresStore(text);
  return sqliteStore(isAbsolute(text) ? text : join(directory, text));
}

/** Says where a store keeps its runs, for people (a PostgreSQL URL without its password). */
export function describeStore(store: Store): string {
  if (store instanceof SqliteStore) return `SQLite, ${store.path}`;
  if (store instanceof PostgresStore)
    return `PostgreSQL, ${store.location}${store.schema ? ` (schema ${store.schema})` : ''}`;
  return 'as configured';
}

/** Checks the shape of a config's `store` setting (a Store is checked by the caller). */
export function checkStoreSetting(value: unknown, where: string): void {
  if (typeof value !== 'object' || value === null) {
    throw new ConfigError(`${where}: expected a Store, { postgres: 'postgres://…' } or { sqlite: 'path' }`);
  }
  const keys = Object.keys(value);
  if ('postgres' in value) {
    if (keys.length !== 1) throw new ConfigError(`${where}: { postgres } takes no other key (got ${keys.join(', ')})`);
    const postgres = (value as { postgres: unknown }).postgres;
    const url = typeof postgres === 'string' ? postgres : (postgres as { url?: unknown } | null)?.url;
    if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url)) {
      throw new ConfigError(`${where}.postgres: expected a postgres:// URL, or { url, schema?, synchronousCommit? }`);
    }
    return;
  }
  if ('sqlite' in value) {
    if (keys.length !== 1) throw new ConfigError(`${where}: { sqlite } takes no other key (got ${keys.join(', ')})`);
    if (typeof (value as { sqlite: unknown }).sqlite !== 'string') {
      throw new ConfigError(`${where}.sqlite: expected the path of the SQLite file`);
    }
    return;
  }
  throw new ConfigError(`${where}: expected a Store, { postgres: 'postgres://…' } or { sqlite: 'path' }`);
}

function openSetting(setting: StoreSetting, directory: string): Store {
  if ('postgres' in setting) {
    const postgres = setting.postgres;
    if (typeof postgres === 'string') return postgresStore(postgres);
    const { url, ...options } = postgres;
    return postgresStore(url, options);
  }
  if ('sqlite' in setting)
    return sqliteStore(isAbsolute(setting.sqlite) ? setting.sqlite : join(directory, setting.sqlite));
  return setting;
}
