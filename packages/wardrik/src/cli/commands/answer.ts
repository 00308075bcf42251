import type { Budget, ParkDecision } from '../../journal/records.js';
import type { ParkRow } from '../../store/store.js';
import { CliError, EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  numberOption,
  type Parsed,
  positionals,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { describeCall, describeDecision, json } from '../describe.js';
import { EventPrinter } from '../event-printer.js';
import { followRun } from '../follow.js';
import { exitCodeOf, outcomeOf, reportOutcome } from '../outcome.js';
import { print, printJson } from '../output.js';

const DECISIONS = ['approve', 'deny', 'edit', 'ran', 'retry', 'fail', 'raise-budget', 'stop'] as const;
type DecisionName = (typeof DECISIONS)[number];

/** Which options each decision takes. */
const TAKES: Record<DecisionName, readonly string[]> = {
  approve: ['note', 'remember'],
  deny: ['reason'],
  edit: ['args', 'note'],
  ran: ['value'],
  retry: ['note'],
  fail: ['reason'],
  'raise-budget': ['usd', 'tokens', 'steps'],
  stop: ['reason'],
};

/** `wardrik answer PARK DECISION`: answers a park, bound to the call it holds, and follows the run. */
export const answer: Command = {
  name: 'answer',
  summary: 'answer a park (approve, deny, ran, retry, fail, raise-budget, stop)',
  usage: `Usage: wardrik answer PARK DECISION [options]

Shows the call the park holds, answers it (bound to that exact call by its callHash), then
follows the run until it ends or parks again. DECISION is one of:
  approve [--remember run|agent]
                            run the call as shown (for in_doubt: it did not run, run it now);
                            for an approval, --remember also allows this tool for the rest of
                            the run, or for the agent from now on
  deny [--reason R]         the call fails; the model is told a person declined (and R)
  edit --args JSON          approval: run the call with these arguments instead; the model is told
  ran --value JSON          in_doubt: it ran, and returned JSON (the call's answer)
  retry                     run the call again
  fail [--reason R]         the call fails with R
  raise-budget --usd N | --tokens N | --steps N
                            budget: raise the limits and go on
  stop [--reason R]         budget: end the run as failed

Exit codes: 0 the run completed, 1 failed (or the answer was refused), 3 parked again,
4 server unreachable.

Options:
  --note TEXT    a note kept with approve or retry
  --no-wait      answer and return, without following the run
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    reason: { type: 'string' },
    note: { type: 'string' },
    args: { type: 'string' },
    remember: { type: 'string' },
    value: { type: 'string' },
    usd: { type: 'string' },
    tokens: { type: 'string' },
    steps: { type: 'string' },
    'no-wait': { type: 'boolean' },
  },
  async run(parsed) {
    const [parkId, name] = positionals(answer, parsed, ['PARK', 'DECISION']) as [string, string];
    checkDecision(name, parsed);
    decisionFrom(name as DecisionName, parsed, true); // usage errors before asking the server anything
    const client = new WardrikClient(resolveConnection(answer, parsed));
    const asJson = flag(parsed, 'json');
    const park = await client.request<ParkRow>('GET', `/v1/parks/${encodeURIComponent(parkId)}`);
    const decision = decisionFrom(name as DecisionName, parsed, park.kind === 'approval');
    if (park.status !== 'open') {
      const given = park.decision ? ` by ${park.answeredBy ?? 'someone'}: ${describeDecision(park.decision)}` : '';
      throw new CliError(EXIT.failed, `park ${parkId} is ${park.status} already${given}; it takes one answer only`);
    }
    if (!asJson) {
      const held = park.call ? describeCall(park.call.name, park.call.arguments) : 'no call (the run’s budget)';
      print(`Park ${park.id} (${park.kind}) of run ${park.runId}: ${park.reason}`);
      print(`  holds ${held}`);
      print(`  answer: ${describeDecision(decision)}`);
    }
    const answered = await client.request<ParkRow>('POST', `/v1/parks/${encodeURIComponent(parkId)}/answer`, {
      decision,
      callHash: park.callHash,
    });
    if (flag(parsed, 'no-wait')) {
      if (asJson) printJson({ park: answered });
      else print('Answered; the run resumes.');
      return EXIT.ok;
    }
    if (!asJson) print('Answered; following the run:');
    return follow(client, answered, asJson);
  },
};

/** Follows the run, printing only what comes after this park's answer. */
async function follow(client: WardrikClient, park: ParkRow, asJson: boolean): Promise<number> {
  const printer = new EventPrinter();
  let live = false;
  const end = await followRun({
    client,
    runId: park.runId,
    onEvent: (event) => {
      if (live && !asJson) printer.print(event);
      if (event.type === 'park-answered' && event.record.type === 'park-answered' && event.record.parkId === park.id) {
        live = true;
      }
    },
  });
  const outcome = await outcomeOf(client, park.runId, end);
  if (asJson) {
    printJson({ park, run: outcome });
    return exitCodeOf(outcome.status);
  }
  return reportOutcome(outcome, false);
}

/** Checks the decision's name and that its options go with it. */
function checkDecision(name: string, parsed: Parsed): void {
  if (!(DECISIONS as readonly string[]).includes(name)) {
    throw usageError(`unknown decision ${JSON.stringify(name)}; expected one of ${DECISIONS.join(', ')}`, answer.usage);
  }
  for (const option of ['reason', 'note', 'value', 'usd', 'tokens', 'steps', 'args', 'remember']) {
    if (parsed.values[option] !== undefined && !TAKES[name as DecisionName].includes(option)) {
      throw usageError(`--${option} does not go with ${name}`, answer.usage);
    }
  }
}

/** The decision a person named on the command line, for a park of the kind shown. */
function decisionFrom(decision: DecisionName, parsed: Parsed, approval: boolean): ParkDecision {
  const reason = stringOption(parsed, 'reason');
  const note = stringOption(parsed, 'note');
  const remember = stringOption(parsed, 'remember');
  if (remember !== undefined && remember !== 'run' && remember !== 'agent') {
    throw usageError(`--remember takes run or agent, not ${JSON.stringify(remember)}`, answer.usage);
  }
  if (remember !== undefined && !approval) throw usageError('--remember goes only with an approval park', answer.usage);
  switch (decision) {
    case 'approve':
      if (approval) {
        return {
          type: 'approve',
          ...(note === undefined ? {} : { note }),
          ...(remember === undefined ? {} : { remember }),
        };
      }
      return note === undefined ? { type: 'retry' } : { type: 'retry', note };
    case 'retry':
      return note === undefined ? { type: 'retry' } : { type: 'retry', note };
    case 'deny':
      if (approval) return reason === undefined ? { type: 'deny' } : { type: 'deny', reason };
      return { type: 'fail', reason: reason ?? 'a person declined' };
    case 'edit': {
      if (!approval) throw usageError('edit goes only with an approval park', answer.usage);
      const text = stringOption(parsed, 'args');
      if (text === undefined) throw usageError(`edit needs --args JSON, e.g. --args '{"amount":100}'`, answer.usage);
      let edited: unknown;
      try {
        edited = JSON.parse(text);
      } catch (cause) {
        throw usageError(`--args is not JSON: ${(cause as Error).message}`, answer.usage);
      }
      if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
        throw usageError('--args must be a JSON object of arguments', answer.usage);
      }
      return { type: 'edit', arguments: edited as Record<string, unknown>, ...(note === undefined ? {} : { note }) };
    }
    case 'fail':
      return reason === undefined ? { type: 'fail' } : { type: 'fail', reason };
    case 'stop':
      return reason === undefined ? { type: 'stop' } : { type: 'stop', reason };
    case 'ran':
      return { type: 'answer', value: valueFrom(parsed) };
    case 'raise-budget':
      return { type: 'raise-budget', budget: budgetFrom(parsed) };
  }
}

function valueFrom(parsed: Parsed): unknown {
  const text = stringOption(parsed, 'value');
  if (text === undefined) {
    throw usageError(`ran needs --value JSON: what the call returned, e.g. --value '{"refunded":250}'`, answer.usage);
  }
  try {
    return JSON.parse(text);
  } catch (thrown) {
    throw usageError(
      `--value is not JSON (${(thrown as Error).message}); quote text as JSON, e.g. --value '"done"'. Got ${json(text, 80)}`,
      answer.usage,
    );
  }
}

function budgetFrom(parsed: Parsed): Budget {
  const positive = (value: number) => value > 0;
  const usd = numberOption(answer, parsed, 'usd', 'a positive number', positive);
  const tokens = numberOption(
    answer,
    parsed,
    'tokens',
    'a positive integer',
    (value) => Number.isInteger(value) && value > 0,
  );
  const steps = numberOption(
    answer,
    parsed,
    'steps',
    'a positive integer',
    (value) => Number.isInteger(value) && value > 0,
  );
  if (usd === undefined && tokens === undefined && steps === undefined) {
    throw usageError('raise-budget needs --usd N, --tokens N or --steps N (the new limits)', answer.usage);
  }
  return {
    ...(usd === undefined ? {} : { usd }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(steps === undefined ? {} : { steps }),
  };
}
