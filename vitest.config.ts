import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources through the `@wardrik/source` export condition.
const conditions = ['@wardrik/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@wardrik/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
