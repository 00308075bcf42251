import { isValidToolName, ToolDefinitionError, type ToolOptions, tool, WardrikError } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { thrown } from './helpers.js';

const base = { name: 'order_status', description: 'Say where an order is.', run: () => 'shipped' };

function build(options: Record<string, unknown>) {
  return tool(options as unknown as ToolOptions);
}

describe('tool(): required options', () => {
  it.each(['name', 'description', 'run'] as const)('names the missing %s', (key) => {
    const { [key]: _dropped, ...rest } = base;
    const error = thrown(() => build(rest));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(new RegExp(`missing required option.*\\b${key}\\b`));
  });

  it('names every missing option at once', () => {
    const error = thrown(() => build({ name: 'x' }));
    expect(error.message).toContain('missing required options');
    expect(error.message).toContain('description');
    expect(error.message).toContain('run');
    expect(error.message).not.toMatch(/\bname\b.*\bname\b/);

    const none = thrown(() => build({}));
    for (const key of ['name', 'description', 'run']) expect(none.message).toContain(key);
  });

  it('throws a ToolDefinitionError that is a WardrikError with a code', () => {
    const error = thrown(() => build({}));
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(WardrikError.isInstance(error)).toBe(true);
    expect((error as ToolDefinitionError).code).toBe('tool_definition');
    expect(error.name).toBe('ToolDefinitionError');
  });

  it('rejects options that are not an object', () => {
    expect(thrown(() => tool(null as never)).message).toContain('expected an options object, got null');
    expect(thrown(() => tool('order_status' as never)).message).toContain('got string');
  });

  it('rejects a description that is not a string and a run that is not a function', () => {
    expect(thrown(() => build({ ...base, description: 42 })).message).toContain('description must be a string');
    expect(thrown(() => build({ ...base, run: 'go' })).message).toContain('run must be a function, got string');
    expect(thrown(() => build({ ...base, title: 7 })).message).toContain('title must be a string');
  });
});

describe('tool(): names follow MCP (1–128 of A–Z a–z 0–9 _ - .)', () => {
  it.each([
    ['empty', ''],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'order status'],
    ['unicode', 'bestellstatus_ä'],
    ['an emoji', 'status_📦'],
    ['a slash', 'workers/refund'],
    ['a colon', 'ns:tool'],
    ['a newline', 'a\nb'],
  ])('rejects a name with %s', (_what, name) => {
    const error = thrown(() => build({ ...base, name }));
    expect(ToolDefinitionError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`name ${JSON.stringify(name)} is invalid`);
    expect(isValidToolName(name)).toBe(false);
  });

  it('rejects a name that is not a string', () => {
    expect(thrown(() => build({ ...base, name: 12 })).message).toContain('name 12 is invalid');
  });

  it.each([
    ['128 characters', 'a'.repeat(128)],
    ['one character', 'x'],
    ['every allowed kind of character', 'Az09_-.'],
    ['a worker-style name', 'workers__refund'],
  ])('accepts a name of %s', (_what, name) => {
    expect(build({ ...base, name }).name).toBe(name);
    expect(isValidToolName(name)).toBe(true);
  });
});

describe('tool(): what it builds', () => {
  it('keeps name, title, description and run', () => {
    const built = tool({ ...base, title: 'Order status' });
    expect(built.name).toBe('order_status');
    expect(built.title).toBe('Order status');
    expect(built.description).toBe('Say where an order is.');
    expect(built.run).toBe(base.run);
  });

  it('leaves title out when it is not given', () => {
    expect('title' in tool(base)).toBe(false);
  });

  it('with no schema takes no arguments', () => {
    const built = tool(base);
    expect(built.schema.jsonSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(built.schema.validate({})).toEqual({ ok: true, value: {} });
    expect(built.schema.validate({ extra: 1 })).toMatchObject({ ok: false });
  });

  it('is frozen: fields cannot be changed, added or deleted', () => {
    const built = tool({ ...base, annotations: { readOnly: true, labels: ['outside'] } });
    expect(Object.isFrozen(built)).toBe(true);
    expect(Object.isFrozen(built.annotations)).toBe(true);
    expect(Object.isFrozen(built.annotations.labels)).toBe(true);
    expect(() => {
      (built as { name: string }).name = 'other';
    }).toThrow(TypeError);
    expect(() => {
      (built.annotations as { readOnly: boolean }).readOnly = false;
    }).toThrow(TypeError);
    expect(() => {
      (built.annotations.labels as string[]).push('more');
    }).toThrow(TypeError);
    expect(built.name).toBe('order_status');
    expect(built.annotations).toEqual({ readOnly: true, labels: ['outside'] });
  });

  it('copies annotations: changing the options afterwards does not change the tool', () => {
    const labels = ['outside'];
    const annotations = { readOnly: true, labels };
    const built = tool({ ...base, annotations });
    (annotations as { readOnly: boolean }).readOnly = false;
    labels.push('secret');
    expect(built.annotations).toEqual({ readOnly: true, labels: ['outside'] });
  });

  it('prefixes schema and annotation problems with the tool name', () => {
    expect(thrown(() => build({ ...base, schema: { id: { type: 'strin' } } })).message).toMatch(
      /^tool order_status: schema\.id\.type/,
    );
    expect(thrown(() => build({ ...base, annotations: { readonly: true } })).message).toMatch(
      /^tool order_status: annotations\.readonly/,
    );
  });
});
