import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  AgentNotFoundError,
  defineAgent,
  InvalidInputError,
  RunNotFoundError,
  type Wardrik,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

const agent = defineAgent({ name: 'ok', instructions: '', model: new ScriptedModel([{ text: 'fine' }]) });
let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('bad input', () => {
  it('unknown agents, runs and empty messages get clear errors, and the runtime keeps serving', async () => {
    wardrik = await openWardrik(tempDbPath(), [agent]);
    await expect(wardrik.start('nope', 'hi')).rejects.toThrow('no agent "nope"; agents: ok');
    await expect(wardrik.start('nope', 'hi')).rejects.toSatisfy((thrown: unknown) =>
      AgentNotFoundError.isInstance(thrown),
    );
    await expect(wardrik.start('ok', '  ')).rejects.toThrow(InvalidInputError);
    await expect(wardrik.start('ok', 'hi', { budget: { usd: 'lots' } as never })).rejects.toThrow(
      'budget.usd: expected a positive number, got lots',
    );
    await expect(wardrik.wait('run_missing')).rejects.toThrow(RunNotFoundError);
    await expect(wardrik.getRun('run_missing')).rejects.toThrow('no run "run_missing"');
    await expect(wardrik.cancel('run_missing')).rejects.toThrow(RunNotFoundError);
    expect((await wardrik.run('ok', 'still there?')).output).toBe('fine');
  });

  it('malformed agent definitions name the field', () => {
    const model = new ScriptedModel([]);
    expect(() => defineAgent({ name: 'bad name', instructions: '', model })).toThrow(AgentDefinitionError);
    expect(() => defineAgent({ name: 'a', instructions: '', model: {} as never })).toThrow(
      'agent a: model must be a Wardrik Model (generate(request, options))',
    );
    // The common mistakes are named with their fix.
    expect(() => defineAgent({ name: 'a', instructions: '', model: 'openai:gpt-4.1-mini' as never })).toThrow(
      `agent a: model is the string "openai:gpt-4.1-mini"; make a model of it with modelFromString("openai:gpt-4.1-mini")`,
    );
    const languageModel = { specificationVersion: 'v3', provider: 'openai.chat', modelId: 'x', doGenerate() {} };
    expect(() => defineAgent({ name: 'a', instructions: '', model: languageModel as never })).toThrow(
      "agent a: model is an AI SDK language model; wrap it: aiSdkModel(openai('gpt-4.1-mini'))",
    );
    expect(() => defineAgent({ name: 'a', instructions: '', model, maxSteps: 0 })).toThrow(
      'maxSteps must be a positive integer',
    );
    expect(() => defineAgent({ name: 'a', instructions: '', model, budget: { dollars: 1 } as never })).toThrow(
      'agent a: budget.dollars: unknown limit',
    );
    const t = tool({ name: 't', description: '', run: () => 1 });
    expect(() => defineAgent({ name: 'a', instructions: '', model, tools: [t, t] })).toThrow('two tools are named "t"');
    expect(() => defineAgent({ name: 'a', instructions: '', model, tools: [{ name: 'x' } as never] })).toThrow(
      'tools[0] is not a tool',
    );
  });
});
