// `wardrik/sqlite`: the SQLite store (one file, one node), and its online backup.
export { backupSqlite, type SqliteBackup } from './store/sqlite/backup.js';
export { SqliteStore, sqliteStore } from './store/sqlite/sqlite-store.js';
