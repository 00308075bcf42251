/*
 * What the CLI prints, in process: symbols and colour only on a terminal (NO_COLOR honoured), the
 * event printer (streamed steps keep their cost on their line, calls named by their tool), hints
 * that name the server, and the decisions `wardrik answer` sends for each park kind, checked
 * against the runtime's own rules.
 */
import { describe, expect, it } from 'vitest';
import { checkDecisionName, DECISIONS, decisionForPark, decisionsFor } from '../src/cli/answer-decision.js';
import { CliError, usageError } from '../src/cli/cli-error.js';
import { ServerProblem } from '../src/cli/client.js';
import { parseCommand } from '../src/cli/command.js';
import { answer } from '../src/cli/commands/answer.js';
import { EventPrinter } from '../src/cli/event-printer.js';
import { commandHint, shellWord } from '../src/cli/hint.js';
import { cliName } from '../src/cli/output.js';
import { problemOf } from '../src/cli/problem.js';
import { PLAIN, styleFor } from '../src/cli/style.js';
import type { JournalRecord, ParkKind } from '../src/journal/records.js';
import type { RunEvent } from '../src/runtime/events.js';
import { checkDecision } from '../src/runtime/park-decision.js';

const RUN = 'run_1';
const v = 1;
const at = 0;
let seq = 0;
const event = (record: JournalRecord): RunEvent => ({ runId: RUN, seq: ++seq, type: record.type, record }) as RunEvent;

const stepWithCalls: JournalRecord = {
  v,
  at,
  type: 'model-step',
  step: 1,
  model: 'scripted',
  text: 'Refunding it.',
  toolCalls: [
    { callId: 'c1.0', name: 'wipe', arguments: { order: 'A1' } },
    { callId: 'c1.1', name: 'refund', arguments: { order: 'A1' } },
  ],
  usage: { inputTokens: 10, outputTokens: 5 },
  measures: { usd: 0.002, inputTokens: 10, outputTokens: 5 },
};
const refused: JournalRecord = {
  v,
  at,
  type: 'call-answered',
  callId: 'c1.0',
  answer: { type: 'error', reason: 'Refused by policy (no-wipes): never', code: 'denied', labels: [], measures: {} },
  attempts: 0,
  rule: 'no-wipes',
};
const ended: JournalRecord = { v, at, type: 'run-ended', status: 'completed', output: 'ok', labels: [], measures: {} };

function printed(style: Parameters<typeof styleFor>[0], env: NodeJS.ProcessEnv, events: readonly RunEvent[]): string {
  let text = '';
  const printer = new EventPrinter({ write: (chunk) => (text += chunk), style: styleFor(style, env) });
  for (const each of events) printer.print(each);
  return text;
}

describe('symbols and colour', () => {
  it('only on a terminal; NO_COLOR set and not empty turns colour off and leaves the symbols', () => {
    expect(styleFor({ isTTY: false }, {})).toEqual(PLAIN);
    expect(styleFor({}, {})).toEqual(PLAIN);
    expect(styleFor({ isTTY: true }, {})).toEqual({ symbols: true, colour: true });
    expect(styleFor({ isTTY: true }, { NO_COLOR: '' })).toEqual({ symbols: true, colour: true });
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' })).toEqual({ symbols: true, colour: false });
    expect(styleFor({ isTTY: false }, { NO_COLOR: '' })).toEqual(PLAIN);
  });

  it('the printer: ASCII markers and no escape codes piped; symbols and colours on a terminal', () => {
    const events = [event(stepWithCalls), event(refused), event(ended)];
    const piped = printed({ isTTY: false }, {}, events);
    expect(piped).toBe(
      [
        '  model: Refunding it.  (step 1: 0.002 usd, 15 tokens)',
        '  <- wipe failed: Refused by policy (no-wipes): never',
        '  completed',
        '',
      ].join('\n'),
    );
    expect(piped).toMatch(/^[\x20-\x7e\n]*$/); // plain ASCII
    const terminal = printed({ isTTY: true }, {}, events);
    expect(terminal).toContain('\x1b[31m← wipe failed:\x1b[39m');
    expect(terminal).toContain('\x1b[32m✓ completed\x1b[39m');
    const noColor = printed({ isTTY: true }, { NO_COLOR: '1' }, events);
    expect(noColor).not.toContain('\x1b[');
    expect(noColor).toContain('  ← wipe failed: Refused by policy');
    expect(noColor).toContain('  ✓ completed');
  });
});

describe('the event printer', () => {
  it("keeps a streamed step's cost on the line of its text", () => {
    const delta = (text: string): RunEvent => ({ type: 'text-delta', runId: RUN, seq, step: 1, delta: text });
    const text = printed({ isTTY: false }, {}, [delta('Refunding '), delta('it.'), event(stepWithCalls), event(ended)]);
    expect(text).toBe('  model: Refunding it.  (step 1: 0.002 usd, 15 tokens)\n  completed\n');
  });

  it('names a refused call by its tool when printing starts after its model step (learn)', () => {
    let text = '';
    const printer = new EventPrinter({ write: (chunk) => (text += chunk), style: PLAIN });
    printer.learn(event(stepWithCalls));
    printer.print(event(refused));
    expect(text).toBe('  <- wipe failed: Refused by policy (no-wipes): never\n');
    // A park names its call too.
    const parked: JournalRecord = {
      v,
      at,
      type: 'run-parked',
      park: {
        id: 'park_1',
        runId: RUN,
        kind: 'approval',
        reason: 'gated',
        call: { callId: 'c2.0', name: 'refund', arguments: {}, idempotencyKey: 'k' },
        labels: [],
        callHash: 'h',
        createdAt: 0,
      },
    };
    const later = new EventPrinter({ write: (chunk) => (text += chunk), style: PLAIN });
    later.learn(event(parked));
    text = '';
    later.print(event({ ...refused, callId: 'c2.0' } as JournalRecord));
    expect(text).toContain('<- refund failed:');
  });

  it('prints model retries as a line of their own', () => {
    const retry: RunEvent = {
      type: 'model-retry',
      runId: RUN,
      seq,
      step: 1,
      attempt: 1,
      delayMs: 2000,
      error: 'HTTP 429 from https://api.example',
    };
    expect(printed({ isTTY: false }, {}, [retry])).toBe('  ~ retrying in 2 s: HTTP 429 from https://api.example\n');
    expect(printed({ isTTY: true }, { NO_COLOR: '1' }, [retry])).toBe(
      '  ↻ retrying in 2 s: HTTP 429 from https://api.example\n',
    );
  });
});

describe('hints', () => {
  it('name --url only when the server is not at the default address', () => {
    // `npx wardrik` when run through npm (as this test may be), else `wardrik`.
    const wardrik = cliName();
    expect(commandHint('answer park_1 approve', { url: 'http://127.0.0.1:4000' })).toBe(
      `${wardrik} answer park_1 approve`,
    );
    expect(commandHint('answer park_1 approve', { url: 'http://127.0.0.1:4100' }, '(run it)')).toBe(
      `${wardrik} answer park_1 approve --url http://127.0.0.1:4100   (run it)`,
    );
    expect(commandHint('tokens list', { config: 'my config.ts' })).toBe(
      `${wardrik} tokens list --config 'my config.ts'`,
    );
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});

describe('wardrik answer: decisions per park kind', () => {
  const kinds: readonly ParkKind[] = ['tool', 'in_doubt', 'approval', 'budget'];
  /** Options that make each decision complete. */
  const OPTIONS: Record<string, string[]> = {
    edit: ['--args', '{"amount":1}'],
    ran: ['--value', '{"done":true}'],
    'raise-budget': ['--usd', '2'],
  };

  it.each(kinds)(
    '%s parks: the CLI takes exactly the decisions the runtime accepts, and sends them as it accepts them',
    (kind) => {
      for (const name of DECISIONS) {
        const parsed = parseCommand(answer, ['park_1', name, ...(OPTIONS[name] ?? [])]);
        const decisionName = checkDecisionName(answer, name, parsed);
        const park = { id: 'park_1', kind };
        if (decisionsFor(kind).includes(name)) {
          const decision = decisionForPark(answer, decisionName, parsed, park, []);
          expect(() => checkDecision(kind, decision), `${kind} ${name}`).not.toThrow();
        } else {
          expect(
            () => decisionForPark(answer, decisionName, parsed, park, ['wardrik answer park_1 stop']),
            `${kind} ${name}`,
          ).toThrow(
            expect.objectContaining({
              exitCode: 2,
              message: expect.stringContaining(`it takes ${describeList(decisionsFor(kind))}, not ${name}`),
            }),
          );
        }
      }
    },
  );

  it('one vocabulary: the runtime takes approve and deny on tool and in-doubt parks; the CLI takes answer and a JSON argument', () => {
    for (const kind of ['tool', 'in_doubt'] as const) {
      expect(checkDecision(kind, { type: 'approve', note: 'go' })).toEqual({ type: 'retry', note: 'go' });
      expect(checkDecision(kind, { type: 'deny', reason: 'no' })).toEqual({ type: 'fail', reason: 'no' });
      expect(() => checkDecision(kind, { type: 'approve', remember: 'run' })).toThrow(
        `decision.remember: goes only with approving an approval park, not a ${kind} park`,
      );
    }
    const edit = parseCommand(answer, ['park_1', 'edit', '--args', '{"amount":3}']);
    expect(
      decisionForPark(answer, checkDecisionName(answer, 'edit', edit), edit, { id: 'p', kind: 'approval' }, []),
    ).toEqual({ type: 'edit', arguments: { amount: 3 } });
    const ran = parseCommand(answer, ['park_1', 'ran', '--value', '"sent"']);
    expect(
      decisionForPark(answer, checkDecisionName(answer, 'ran', ran), ran, { id: 'p', kind: 'in_doubt' }, []),
    ).toEqual({
      type: 'answer',
      value: 'sent',
    });
  });

  it('retry --previous-holder-stopped: sent as the runtime takes it, for in-doubt calls only', () => {
    for (const name of ['retry', 'approve'] as const) {
      const parsed = parseCommand(answer, ['park_1', name, '--previous-holder-stopped', '--note', 'b is gone']);
      const decision = decisionForPark(
        answer,
        checkDecisionName(answer, name, parsed),
        parsed,
        {
          id: 'park_1',
          kind: 'in_doubt',
        },
        [],
      );
      expect(decision).toEqual({ type: 'retry', note: 'b is gone', previousHolderStopped: true });
      expect(checkDecision('in_doubt', decision)).toEqual(decision);
    }
    const onApproval = parseCommand(answer, ['park_1', 'approve', '--previous-holder-stopped']);
    expect(() =>
      decisionForPark(
        answer,
        checkDecisionName(answer, 'approve', onApproval),
        onApproval,
        {
          id: 'park_1',
          kind: 'approval',
        },
        [],
      ),
    ).toThrow('--previous-holder-stopped goes only with retrying an in_doubt call');
    expect(() => checkDecision('in_doubt', { type: 'retry', previousHolderStopped: 'yes' } as never)).toThrow(
      'decision.previousHolderStopped: expected true',
    );
  });

  it('every decision the runtime accepts for a kind can be given (none is unreachable from the CLI)', () => {
    for (const kind of kinds) {
      const sent = new Set<string>();
      for (const name of decisionsFor(kind)) {
        const parsed = parseCommand(answer, ['park_1', name, ...(OPTIONS[name] ?? [])]);
        sent.add(decisionForPark(answer, name, parsed, { id: 'park_1', kind }, []).type);
      }
      // What each decision the runtime accepts is taken as (approve and deny on a tool park are retry and fail).
      const runtime = new Set<string>();
      for (const type of ['answer', 'retry', 'fail', 'approve', 'deny', 'edit', 'raise-budget', 'stop']) {
        try {
          runtime.add(checkDecision(kind, { type, value: 1, arguments: {}, budget: { usd: 1 } }).type);
        } catch {
          // not taken by this kind
        }
      }
      expect([...sent].sort(), kind).toEqual([...runtime].sort());
    }
  });
});

describe('--json errors', () => {
  it('are problems with the exit code: usage 2, unreachable 4, the server’s own problem 1', () => {
    expect(problemOf(usageError('missing MESSAGE'))).toEqual({
      type: 'https://wardrik.dev/problems/usage',
      title: 'Usage error',
      detail: 'missing MESSAGE',
      exitCode: 2,
    });
    expect(problemOf(new CliError(4, 'cannot reach'))).toMatchObject({ title: 'Server unreachable', exitCode: 4 });
    const server = new ServerProblem(
      404,
      { type: 'https://wardrik.dev/problems/run_not_found', title: 'Run not found', status: 404, detail: 'no run "x"' },
      'Run not found (404): no run "x"',
    );
    expect(problemOf(server)).toEqual({
      type: 'https://wardrik.dev/problems/run_not_found',
      title: 'Run not found',
      status: 404,
      detail: 'no run "x"',
      exitCode: 1,
    });
    expect(problemOf(new Error('config broken'))).toMatchObject({ detail: 'config broken', exitCode: 1 });
  });
});

function describeList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
