// `wardrik/postgres`: the PostgreSQL store, which nodes share (needs the `pg` package).
export { PostgresStore, type PostgresStoreOptions, postgresStore } from './store/postgres/postgres-store.js';
