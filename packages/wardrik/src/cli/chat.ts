import type { RunResult } from '../runtime/wardrik.js';
import { type ChatRunEnd, followChatRun } from './chat-run.js';
import { conversationLines, goingRun, type OpenedSession } from './chat-session.js';
import { EXIT } from './cli-error.js';
import type { WardrikClient } from './client.js';
import { answerCommands, describeCostShort, describeLabels, describePark, shown } from './describe.js';
import { EventPrinter } from './event-printer.js';
import { commandHint } from './hint.js';
import { invisibleLines } from './invisible-lines.js';
import type { LineReader } from './line-reader.js';
import type { RunOutcome } from './outcome.js';
import { print, printError } from './output.js';
import { paint, type Style } from './style.js';

/** The exit code of a chat ended with Ctrl-C (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/** What a chat needs. */
export interface ChatOptions {
  readonly client: WardrikClient;
  readonly opened: OpenedSession;
  readonly reader: LineReader;
  /** Prompt and answer parks in place (a terminal, or --interactive); otherwise stop at a park. */
  readonly interactive: boolean;
  /** One JSON object per line for each run, and nothing else. */
  readonly asJson: boolean;
  readonly style: Style;
}

/** Lines that end a chat. */
const EXIT_LINES = new Set(['/exit', '/quit']);

/**
 * A conversation with an agent over the HTTP API: each line is a run in the session, followed
 * live; parks are answered in place (interactive) or stop the chat (piped). Ctrl-C cancels the
 * run going on and ends the chat.
 */
export class Chat {
  readonly #options: ChatOptions;
  /** The run going on, which Ctrl-C cancels. */
  #active: string | undefined;
  #interrupted = false;
  #cancelling: Promise<void> | undefined;

  constructor(options: ChatOptions) {
    this.#options = options;
  }

  /** Ctrl-C: cancels the run going on (a second Ctrl-C leaves at once) and ends the chat. */
  interrupt(): void {
    if (this.#interrupted) {
      printError('wardrik chat: interrupted again; leaving without waiting for the run to be cancelled');
      process.exit(EXIT_INTERRUPTED);
    }
    this.#interrupted = true;
    // Off the line of a prompt or of text being streamed.
    this.#line('');
    this.#options.reader.interrupt();
    if (this.#active !== undefined) this.#cancelling = this.#cancel(this.#active);
  }

  /** Runs the chat until /exit, the end of the input, a park (piped) or Ctrl-C; resolves to the exit code. */
  async run(): Promise<number> {
    const { opened, reader, interactive } = this.#options;
    const { session } = opened;
    this.#greet();
    const going = goingRun(session);
    if (going) {
      const code = await this.#resume(going.id, going.status);
      if (code !== undefined) return code;
    }
    for (;;) {
      const line = await reader.read(interactive ? this.#paint('cyan', 'you> ') : '');
      if (this.#interrupted) return EXIT_INTERRUPTED;
      if (line === undefined || EXIT_LINES.has(line.trim())) break;
      if (line.trim() === '') continue;
      // Piped, the turn's line shows in the transcript as a person's would.
      if (!interactive) {
        this.#line(`${this.#paint('bold', 'you:')} ${shown(line)}`);
        for (const flag of invisibleLines(line, this.#options.style, '  ')) this.#line(flag);
      }
      const code = await this.#turn(line);
      if (code !== undefined) return code;
    }
    if (interactive) this.#line(`Continue this chat with: ${this.#comeBack()}`);
    return EXIT.ok;
  }

  /** One turn: a run of the session on `input`, followed to its end. An exit code ends the chat. */
  async #turn(input: string): Promise<number | undefined> {
    const { client, opened } = this.#options;
    const { runId } = await client.request<{ runId: string }>('POST', '/v1/runs', {
      agent: opened.session.agent,
      input,
      session: opened.session.id,
    });
    return this.#follow(runId, input);
  }

  /** The session's run still going when the chat began: followed (and its parks asked) first. */
  async #resume(runId: string, status: string): Promise<number | undefined> {
    const { client } = this.#options;
    const run = await client.request<{ journal: readonly { seq: number }[] }>(
      'GET',
      `/v1/runs/${encodeURIComponent(runId)}`,
    );
    this.#line(
      status === 'parked'
        ? `Its last run ${runId} waits for a person.`
        : `Its last run ${runId} is still going; following it.`,
    );
    return this.#follow(runId, undefined, run.journal.at(-1)?.seq ?? 0);
  }

  async #follow(runId: string, input: string | undefined, afterSeq?: number): Promise<number | undefined> {
    const { client, style, interactive, reader, asJson } = this.#options;
    this.#active = runId;
    // A printer per run: it knows the run's calls and steps by their ids and numbers.
    const printer = asJson ? undefined : new EventPrinter({ style, hints: { url: client.url } });
    if (this.#interrupted) this.#cancelling ??= this.#cancel(runId);
    let end: ChatRunEnd;
    try {
      end = await followChatRun({
        client,
        runId,
        style,
        write: (line) => this.#line(line),
        ...(printer ? { printer } : {}),
        ...(interactive ? { reader } : {}),
        ...(afterSeq === undefined ? {} : { afterSeq }),
      });
    } finally {
      this.#active = undefined;
    }
    if (this.#interrupted) {
      await this.#cancelling;
      return EXIT_INTERRUPTED;
    }
    const { outcome } = end;
    this.#report(outcome, input, end.asked);
    if (outcome.status === 'parked') return EXIT.parked;
    if (outcome.status !== 'completed' && !interactive) return EXIT.failed;
    return undefined;
  }

  #greet(): void {
    const { opened, interactive, asJson } = this.#options;
    const { session, created } = opened;
    if (asJson) {
      const { runList: _runs, messages: _messages, state: _state, edits: _edits, ...row } = session;
      print(JSON.stringify({ type: 'session', created, session: row }));
      return;
    }
    const head = created
      ? `Started session ${session.id} with ${session.agent}.`
      : `Session ${session.id} with ${session.agent} (${session.runs} run${session.runs === 1 ? '' : 's'}).`;
    print(this.#paint('bold', head));
    if (!created) for (const line of conversationLines(session, this.#options.style)) print(line);
    print(`Continue it later with: ${this.#comeBack()}`);
    if (interactive) print(this.#paint('dim', 'Type a message; /exit or Ctrl-D ends the chat, Ctrl-C cancels a run.'));
  }

  /** What a run came to: the agent's answer, or why it did not give one. */
  #report(outcome: RunOutcome, input: string | undefined, asked: ReadonlySet<string>): void {
    const { asJson, client, opened } = this.#options;
    if (asJson) {
      print(JSON.stringify({ type: 'turn', ...(input === undefined ? { resumed: true } : { input }), ...outcome }));
      return;
    }
    const { runId, status, measures, labels } = outcome;
    if (status === 'parked') {
      const hints = { url: client.url };
      for (const park of outcome.parks) {
        // A park asked in place is on the screen already: only the commands that answer it.
        if (asked.has(park.id)) {
          for (const [index, command] of answerCommands(park, hints).entries()) {
            print(`    ${index === 0 ? 'answer with:' : '         or:'} ${command}`);
          }
        } else for (const line of describePark(park, { style: this.#options.style, hints })) print(line);
      }
      print(`Run ${runId} waits for a person. Answer it as above, then go on with: ${this.#comeBack()}`);
      return;
    }
    if (status === 'completed')
      print(`${this.#paint('bold', `${opened.session.agent}:`)} ${shown(outcome.output ?? '')}`);
    else print(`${this.#paint('red', `Run ${runId} ${status}:`)} ${shown(outcome.error ?? 'no reason given')}`);
    for (const line of invisibleLines([outcome.output, outcome.error], this.#options.style, '  ')) print(line);
    print(this.#paint('dim', `  (run ${runId}: ${describeCostShort(measures)}; labels: ${describeLabels(labels)})`));
  }

  async #cancel(runId: string): Promise<void> {
    const { client } = this.#options;
    this.#line(`Ctrl-C: cancelling run ${runId}…`);
    try {
      const result = await client.request<RunResult>('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, {});
      this.#line(
        result.status === 'cancelled'
          ? `Cancelled run ${runId}.`
          : `Run ${runId} was not cancelled: it ended ${result.status} first.`,
      );
    } catch (thrown) {
      printError(`wardrik chat: could not cancel run ${runId}: ${(thrown as Error).message}`);
    }
  }

  /** The command that continues this chat. */
  #comeBack(): string {
    const { session } = this.#options.opened;
    return commandHint(`chat ${session.agent} --session ${session.id}`, { url: this.#options.client.url });
  }

  /** A line of the chat's own (not with --json, whose stdout is JSON only). */
  #line(text: string): void {
    if (!this.#options.asJson) print(text);
  }

  #paint(colour: Parameters<typeof paint>[1], text: string): string {
    return paint(this.#options.style, colour, text);
  }
}
