import { describe, expect, it } from 'vitest';
import { languageModelFromString, ModelSpecError, modelFromEnvironment, modelFromString } from '../src/index.js';

const keys = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };

function specError(run: () => unknown): ModelSpecError {
  try {
    run();
  } catch (thrown) {
    if (ModelSpecError.isInstance(thrown)) return thrown;
    throw thrown;
  }
  throw new Error('expected a ModelSpecError');
}

describe('modelFromString', () => {
  it('makes models for each provider, with ids in the same form', () => {
    expect(modelFromString('openai:gpt-4.1-mini', keys).id).toBe('openai:gpt-4.1-mini');
    expect(modelFromString('anthropic:claude-sonnet-4-5', keys).id).toBe('anthropic:claude-sonnet-4-5');
    expect(modelFromString('openai-compatible:llama3.2@http://127.0.0.1:11434/v1', {}).id).toBe(
      'openai-compatible:llama3.2',
    );
    expect(modelFromString('openai-compatible:llama3.2', { WARDRIK_BASE_URL: 'http://127.0.0.1:11434/v1' }).id).toBe(
      'openai-compatible:llama3.2',
    );
    const openai = languageModelFromString('openai:gpt-4.1-mini', keys);
    expect([openai.provider, openai.modelId]).toEqual(['openai.chat', 'gpt-4.1-mini']);
  });

  it('names the environment variable of a missing key', () => {
    expect(specError(() => modelFromString('openai:gpt-4o', {})).message).toBe(
      '"openai:gpt-4o" needs an API key: set OPENAI_API_KEY',
    );
    expect(
      specError(() => modelFromString('anthropic:claude-haiku-4-5', { ANTHROPIC_API_KEY: ' ' })).message,
    ).toContain('set ANTHROPIC_API_KEY');
  });

  it('refuses an unknown provider, a string without a provider or model, and a compatible model without a server', () => {
    const unknown = specError(() => modelFromString('gemini:gemini-2.5-pro', keys));
    expect(unknown.message).toMatch(/^unknown model provider "gemini" in "gemini:gemini-2.5-pro": use "openai:MODEL"/);
    expect(unknown.code).toBe('model_spec');
    expect(specError(() => modelFromString('gpt-4o', keys)).message).toContain('is not a model string');
    expect(specError(() => modelFromString('openai:', keys)).message).toContain('names no model');
    expect(specError(() => modelFromString('openai-compatible:llama3.2', {})).message).toContain(
      'set WARDRIK_BASE_URL',
    );
  });
});

describe('modelFromEnvironment', () => {
  it('is undefined without WARDRIK_MODEL, so the caller falls back to its offline model', () => {
    expect(modelFromEnvironment({ OPENAI_API_KEY: 'sk-test' })).toBeUndefined();
    expect(modelFromEnvironment({ WARDRIK_MODEL: '  ' })).toBeUndefined();
  });

  it('uses WARDRIK_MODEL, and says where a bad one came from', () => {
    expect(modelFromEnvironment({ ...keys, WARDRIK_MODEL: 'openai:gpt-4o-mini' })?.id).toBe('openai:gpt-4o-mini');
    expect(specError(() => modelFromEnvironment({ WARDRIK_MODEL: 'openai:gpt-4o-mini' })).message).toBe(
      'WARDRIK_MODEL: "openai:gpt-4o-mini" needs an API key: set OPENAI_API_KEY',
    );
  });
});
