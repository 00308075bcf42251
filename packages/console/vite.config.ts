import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

// Built into the wardrik package (packages/wardrik/console), which `wardrik serve` serves at /.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // Workspace packages from their TypeScript sources (as the tests run them): nothing to build first.
  resolve: { conditions: ['@wardrik/source', ...defaultClientConditions] },
  build: {
    outDir: fileURLToPath(new URL('../wardrik/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script or style: the CSP allows neither.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
