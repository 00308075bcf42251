import { Chat, EXIT_INTERRUPTED } from '../chat.js';
import { openSession } from '../chat-session.js';
import { CliError, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  positionals,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { LineReader } from '../line-reader.js';
import { print, printError, stdoutStyle } from '../output.js';
import { problemOf } from '../problem.js';
import { PLAIN } from '../style.js';

/** `wardrik chat AGENT [--session S]`: a conversation with an agent, each step live, parks answered in place. */
export const chat: Command = {
  name: 'chat',
  summary: 'talk with an agent in a session, each step live, answering its parks in place',
  usage: `Usage: wardrik chat AGENT [--session ID] [--interactive]

A conversation with AGENT: each line you type is a run in one session, so the agent sees what
was said before. Each step shows as it happens (the model's text, calls ->, answers <-), then
the agent's answer. Without --session a new session is started; its id is printed with the
command that comes back to it. With --session ID the chat goes on where it was: the last
messages are shown first, and a run of the session still going is followed (its parks asked).

When a run waits for a person, the park is shown (its kind, reason, the call it holds, the run's
labels) and answered right there:
  approval    approve [--remember run|agent]  ·  deny [REASON]  ·  edit ARGUMENTS-JSON
  in_doubt    ran VALUE-JSON (it ran)  ·  retry (it did not run: run it now)  ·  fail [REASON]
  tool        approve (run it again, approved)  ·  answer VALUE-JSON  ·  fail [REASON]
  budget      raise-budget --usd N | --tokens N | --steps N  ·  stop [REASON]
(\`wardrik answer\`'s options work too, e.g. deny --reason 'too much'.) If someone answered it
elsewhere first, that is said and the chat goes on.

/exit or Ctrl-D ends the chat; Ctrl-C cancels the run going on and ends it.

Piped input (stdin not a terminal): each line is one turn, no prompts, plain output. Parks are
never answered for you: the chat stops at the first one, prints it with the \`wardrik answer\`
commands that answer it, and exits 3; then \`wardrik chat AGENT --session ID\` goes on. A run
that fails or is cancelled stops a piped chat too (exit 1). With --json, stdout is one JSON
object per line: {"type":"session",…}, then {"type":"turn","input":…} with each run's outcome
as \`run --json\` prints it; parks stop the chat as when piped.

Exit codes: 0 the chat ended (/exit, end of input), 1 a run failed or was cancelled (piped) or
the server refused, 2 usage error, 3 a run waits for a person (piped, or input ended at a park),
4 server unreachable, 130 ended with Ctrl-C (the run going on cancelled).

Options:
  --session ID   continue the session ID (see \`GET /v1/sessions?agent=AGENT\`)
  --interactive  prompt and answer parks in place even when stdin is not a terminal
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    session: { type: 'string' },
    interactive: { type: 'boolean' },
  },
  async run(parsed) {
    const [agent] = positionals(chat, parsed, ['AGENT']) as [string];
    const asJson = flag(parsed, 'json');
    if (asJson && flag(parsed, 'interactive')) {
      throw usageError('--interactive does not go with --json (with --json, parks stop the chat)', chat.usage);
    }
    const interactive = !asJson && (flag(parsed, 'interactive') || process.stdin.isTTY === true);
    const client = new WardrikClient(resolveConnection(chat, parsed));
    const style = interactive ? stdoutStyle() : PLAIN;
    let session: Chat | undefined;
    // Before the session is open there is nothing to cancel: Ctrl-C just leaves.
    const interrupt = () => (session ? session.interrupt() : process.exit(EXIT_INTERRUPTED));
    const reader = new LineReader({
      input: process.stdin,
      ...(interactive ? { output: process.stdout } : {}),
      onInterrupt: interrupt,
    });
    process.on('SIGINT', interrupt);
    try {
      const opened = await openSession(client, agent, stringOption(parsed, 'session'));
      session = new Chat({ client, opened, reader, interactive, asJson, style });
      return await session.run();
    } catch (thrown) {
      if (!asJson) throw thrown;
      // With --json every line of stdout is one JSON object: the problem too.
      const problem = problemOf(thrown);
      print(JSON.stringify(problem));
      printError(`wardrik chat: ${thrown instanceof CliError ? thrown.message : problem.detail}`);
      return problem.exitCode;
    } finally {
      process.off('SIGINT', interrupt);
      reader.close();
    }
  },
};
