import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources through the `@wardrik/source` export condition.
const conditions = ['@wardrik/source', 'import', 'module', 'node', 'default'];
// Not 'import' on the server side: vitest hands these to Node as --conditions, and 'import' there
// would make a CommonJS package's require() (pg's require('pg-pool')) load an ES module.
const ssrConditions = conditions.filter((condition) => condition !== 'import');

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['@wardrik/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // A PostgreSQL of the tests' own unless WARDRIK_TEST_DATABASE_URL names one.
    globalSetup: ['packages/wardrik/test/postgres-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
