import type { ParkRow } from '../../store/store.js';
import { checkDecisionName, DECISION_OPTIONS, decisionForPark, decisionNamed } from '../answer-decision.js';
import { CliError, EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  type Parsed,
  positionals,
  SERVER_HELP,
  serverOptions,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { answerCommands, describeCall, describeDecision, shown } from '../describe.js';
import { followRun } from '../follow.js';
import { commandHint } from '../hint.js';
import { invisibleLines } from '../invisible-lines.js';
import { exitCodeOf, outcomeOf, reportOutcome } from '../outcome.js';
import { print, printJson, stdoutStyle } from '../output.js';
import { printerFor } from '../watch-run.js';

/** `wardrik answer PARK DECISION`: answers a park, bound to the call it holds, and follows the run. */
export const answer: Command = {
  name: 'answer',
  summary: 'answer a park (approve, deny, ran, retry, fail, raise-budget, stop)',
  usage: `Usage: wardrik answer PARK DECISION [JSON] [options]

Shows the call the park holds, answers it (bound to that exact call by its callHash), then
follows the run until it ends or parks again. DECISION is one of:
  approve [--remember run|agent]
                            run the call as shown (for in_doubt: it did not run, run it now);
                            for an approval, --remember also allows this tool for the rest of
                            the run, or for the agent from now on
  deny [--reason R]         the call fails; the model is told a person declined (and R)
  edit JSON | --args JSON   approval: run the call with these arguments instead; the model is told
  ran JSON | --value JSON   it ran, and returned JSON (the call's answer; for in_doubt parks);
                            'answer' is the same decision (the API's word)
  retry [--previous-holder-stopped]
                            run the call again; for an in_doubt call another node started and
                            may still finish, the flag says you checked it stopped
  fail [--reason R]         the call fails with R
  raise-budget --usd N | --tokens N | --steps N
                            budget: raise the limits and go on
  stop [--reason R]         budget: end the run as failed

Which park takes which (anything else is refused before the server is asked, exit 2):
  tool, in_doubt            approve, deny, ran, retry, fail
  approval                  approve, deny, edit, ran, retry, fail
  budget                    raise-budget, stop

Exit codes: 0 the run completed, 1 failed (or the server refused the answer), 2 usage error
(a decision the park does not take), 3 parked again, 4 server unreachable.

Options:
  --note TEXT    a note kept with approve or retry
  --no-wait      answer and return, without following the run
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    ...DECISION_OPTIONS,
    'no-wait': { type: 'boolean' },
  },
  async run(parsed) {
    const given = parsed.positionals;
    const [parkId, typed] = positionals(answer, { ...parsed, positionals: given.slice(0, 2) }, [
      'PARK',
      'DECISION',
    ]) as [string, string];
    const name = decisionNamed(typed);
    parsed = withJsonArgument(parsed, name, given.slice(2));
    const decisionName = checkDecisionName(answer, name, parsed);
    const client = new WardrikClient(resolveConnection(answer, parsed));
    const asJson = flag(parsed, 'json');
    const park = await client.request<ParkRow>('GET', `/v1/parks/${encodeURIComponent(parkId)}`);
    if (park.status !== 'open') {
      const given = park.decision ? ` by ${park.answeredBy ?? 'someone'}: ${describeDecision(park.decision)}` : '';
      throw new CliError(EXIT.failed, `park ${parkId} is ${park.status} already${given}; it takes one answer only`);
    }
    const hints = { url: client.url };
    const decision = decisionForPark(answer, decisionName, parsed, park, answerCommands(park, hints));
    if (!asJson) {
      const held = park.call ? describeCall(park.call.name, park.call.arguments) : 'no call (the run’s budget)';
      print(`Park ${park.id} (${park.kind}) of run ${park.runId}: ${shown(park.reason)}`);
      print(`  holds ${held}`);
      for (const line of invisibleLines(park, stdoutStyle(), '  ')) print(line);
      print(`  answer: ${describeDecision(decision)}`);
    }
    const answered = await client.request<ParkRow>('POST', `/v1/parks/${encodeURIComponent(parkId)}/answer`, {
      decision,
      callHash: park.callHash,
    });
    if (flag(parsed, 'no-wait')) {
      if (asJson) printJson({ park: answered });
      else {
        print('Answered; the run resumes.');
        print(`Follow it with: ${commandHint(`follow ${park.runId}`, hints)}`);
      }
      return EXIT.ok;
    }
    if (!asJson) print('Answered; following the run:');
    return follow(client, answered, asJson);
  },
};

/**
 * Follows the run, printing only what comes after this park's answer; what came before is learnt
 * (the names of calls, so that an answer without a call-started record is named by its tool).
 */
async function follow(client: WardrikClient, park: ParkRow, asJson: boolean): Promise<number> {
  const printer = printerFor(client);
  let live = false;
  const end = await followRun({
    client,
    runId: park.runId,
    onEvent: (event) => {
      if (live && !asJson) printer.print(event);
      else printer.learn(event);
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

/** The option a JSON argument after the decision stands for: `edit '{"amount":3}'` is `edit --args '{"amount":3}'`. */
const JSON_ARGUMENT: Readonly<Record<string, string>> = { edit: 'args', ran: 'value' };

/** `parsed` with a JSON argument after the decision put in its option (a usage error where none goes, or it is given twice). */
function withJsonArgument(parsed: Parsed, name: string, extra: readonly string[]): Parsed {
  if (extra.length === 0) return parsed;
  const option = JSON_ARGUMENT[name];
  if (option === undefined || extra.length > 1) {
    throw usageError(
      `unexpected argument ${extra.map((each) => JSON.stringify(each)).join(' ')}: only edit and ran take JSON after the decision (give other text as --note or --reason)`,
      answer.usage,
    );
  }
  if (parsed.values[option] !== undefined) {
    throw usageError(`${name} got its JSON twice: as an argument and as --${option}; give it once`, answer.usage);
  }
  return { ...parsed, values: { ...parsed.values, [option]: extra[0] } };
}
