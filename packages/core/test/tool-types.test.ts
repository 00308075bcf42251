import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typeErrors } from './types/typecheck.js';

const folder = fileURLToPath(new URL('./types/', import.meta.url));
const typeTests = readdirSync(folder)
  .filter((name) => name.endsWith('.test-d.ts'))
  .map((name) => join(folder, name));

describe('inferred tool types', () => {
  it('hold: the type tests compile under strict, each @ts-expect-error meeting its error', () => {
    expect(typeTests.map((path) => path.slice(folder.length)).sort()).toEqual([
      'json-schema.test-d.ts',
      'shorthand.test-d.ts',
      'standard-schema.test-d.ts',
    ]);
    expect(typeErrors(typeTests)).toEqual([]);
  }, 120_000);

  it('are checked: a wrong expectation and an @ts-expect-error with no error each fail', () => {
    const wrong = `
      import { tool } from '@wardrik/core';
      import { expectTypeOf } from 'vitest';
      tool({
        name: 'example',
        description: 'An example.',
        schema: { order_id: { type: 'string', required: true } },
        run: ({ order_id }) => {
          expectTypeOf(order_id).toEqualTypeOf<number>();
          // @ts-expect-error
          return order_id.length;
        },
      });
    `;
    const errors = typeErrors([], { [join(folder, 'wrong.test-d.ts')]: wrong });
    expect(errors).toEqual([
      expect.stringMatching(/wrong\.test-d\.ts\(9,\d+\): error TS2344:/),
      expect.stringMatching(/wrong\.test-d\.ts\(10,\d+\): error TS2578: Unused '@ts-expect-error' directive/),
    ]);
  }, 120_000);
});
