/*
 * How `wardrik chat` reads an answer to a park typed in place (src/cli/park-prompt.ts) and the
 * words of a line (src/cli/words.ts): free text or `wardrik answer`'s options, decisions by kind.
 */
import { describe, expect, it } from 'vitest';
import { parkChoices, parseParkAnswer } from '../src/cli/park-prompt.js';
import { splitWords } from '../src/cli/words.js';

const approval = { id: 'park_1', kind: 'approval' } as const;
const tool = { id: 'park_2', kind: 'tool' } as const;
const inDoubt = { id: 'park_3', kind: 'in_doubt' } as const;
const budget = { id: 'park_4', kind: 'budget' } as const;

describe('an answer typed in place', () => {
  it('takes free text after the decision as its reason, arguments, value or note', () => {
    expect(parseParkAnswer('approve', approval)).toEqual({ type: 'decision', decision: { type: 'approve' } });
    expect(parseParkAnswer('  DENY   too much  ', approval)).toEqual({
      type: 'decision',
      decision: { type: 'deny', reason: 'too much' },
    });
    expect(parseParkAnswer('edit {"amount": 100}', approval)).toEqual({
      type: 'decision',
      decision: { type: 'edit', arguments: { amount: 100 } },
    });
    expect(parseParkAnswer('approve checked with finance', approval)).toEqual({
      type: 'decision',
      decision: { type: 'approve', note: 'checked with finance' },
    });
    expect(parseParkAnswer('ran {"refunded":5}', inDoubt)).toEqual({
      type: 'decision',
      decision: { type: 'answer', value: { refunded: 5 } },
    });
    expect(parseParkAnswer('answer "done"', tool)).toEqual({
      type: 'decision',
      decision: { type: 'answer', value: 'done' },
    });
  });

  it("takes `wardrik answer`'s options too, quoted as a shell would", () => {
    expect(parseParkAnswer(`deny --reason 'not today'`, approval)).toEqual({
      type: 'decision',
      decision: { type: 'deny', reason: 'not today' },
    });
    expect(parseParkAnswer('approve --remember run', approval)).toEqual({
      type: 'decision',
      decision: { type: 'approve', remember: 'run' },
    });
    expect(parseParkAnswer('raise-budget --usd 2 --steps 10', budget)).toEqual({
      type: 'decision',
      decision: { type: 'raise-budget', budget: { usd: 2, steps: 10 } },
    });
    expect(parseParkAnswer('raise --tokens 5000', budget)).toMatchObject({
      decision: { type: 'raise-budget', budget: { tokens: 5000 } },
    });
    expect(parseParkAnswer('stop enough', budget)).toEqual({
      type: 'decision',
      decision: { type: 'stop', reason: 'enough' },
    });
  });

  it('means for tool and in_doubt parks what `wardrik answer` means: approve runs the call, deny fails it', () => {
    expect(parseParkAnswer('approve', tool)).toEqual({ type: 'decision', decision: { type: 'retry' } });
    expect(parseParkAnswer('retry', inDoubt)).toEqual({ type: 'decision', decision: { type: 'retry' } });
    expect(parseParkAnswer('deny', tool)).toEqual({
      type: 'decision',
      decision: { type: 'fail', reason: 'a person declined' },
    });
    expect(parseParkAnswer('fail it broke', inDoubt)).toEqual({
      type: 'decision',
      decision: { type: 'fail', reason: 'it broke' },
    });
  });

  it('says what the park takes when the answer is not one of them, or is incomplete or malformed', () => {
    const invalid = (line: string, park: { id: string; kind: 'approval' | 'tool' | 'in_doubt' | 'budget' }) => {
      const typed = parseParkAnswer(line, park);
      if (typed.type !== 'invalid') throw new Error(`${line} was taken: ${JSON.stringify(typed)}`);
      return typed.message;
    };
    expect(invalid('', approval)).toBe(`say one of: ${parkChoices('approval')}`);
    expect(invalid('stop', approval)).toContain('"stop" is not an answer here; say one of: approve');
    expect(invalid('edit', tool)).toContain('approve (run it again, approved)');
    expect(invalid('approve', budget)).toContain('raise-budget --usd N');
    expect(invalid('edit', approval)).toBe(
      'edit needs the arguments to run it with, as JSON: e.g. edit {"amount":100}',
    );
    expect(invalid('ran', inDoubt)).toContain('ran needs what the call returned, as JSON');
    expect(invalid('edit [1]', approval)).toContain('must be a JSON object');
    expect(invalid('ran done', inDoubt)).toContain('is not JSON');
    expect(invalid('raise-budget 2', budget)).toContain('raise-budget takes');
    expect(invalid('raise-budget', budget)).toContain('needs --usd N, --tokens N or --steps N');
    expect(invalid('deny --reason', approval)).toContain('--reason needs a value');
    expect(invalid('deny --note x', approval)).toContain('--note does not go with deny');
    expect(invalid("deny --reason 'open", approval)).toBe('unclosed single quote');
    expect(invalid('approve --remember forever', approval)).toContain('--remember takes run or agent');
  });
});

describe('splitWords', () => {
  it('splits as a shell would for plain input: quotes, escapes, runs of spaces', () => {
    expect(splitWords('  a  b\tc ')).toEqual(['a', 'b', 'c']);
    expect(splitWords(`--args '{"a": 1}' x`)).toEqual(['--args', '{"a": 1}', 'x']);
    expect(splitWords(`"say \\"hi\\"" it\\'s ''`)).toEqual(['say "hi"', "it's", '']);
    expect(splitWords('')).toEqual([]);
    expect(() => splitWords('"open')).toThrow('unclosed double quote');
  });
});
