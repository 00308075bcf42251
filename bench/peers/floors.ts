// The floors of the peers benchmark (bench/peers.ts), in a process of their own:
//   node --expose-gc --import tsx bench/peers/floors.ts loop|sqlite-normal|sqlite-full
// `loop`: the workload as a plain hand-written agent loop (a messages array, the scripted model
// awaited, the tool found by name and awaited; no validation, no events, no journal).
// `sqlite-normal` / `sqlite-full`: the same loop plus two raw better-sqlite3 inserts per step (the
// model's turn and the tool's result, as JSON, committed in one transaction once the tool has
// answered; the final answer one insert), WAL, synchronous NORMAL or FULL. Every step commits on
// its own: no group commit, so under concurrency this floor is a naive durable loop.
import Database from 'better-sqlite3';
import { measureAndReport, temporaryPath } from './harness.js';
import { addTool, inputFor, nextTurn, type Turn } from './workload.js';

const variant = process.argv[2];
if (variant !== 'loop' && variant !== 'sqlite-normal' && variant !== 'sqlite-full') {
  console.error('usage: floors.ts loop|sqlite-normal|sqlite-full');
  process.exit(2);
}

type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; turn: Turn }
  | { role: 'tool'; callId: string; content: number };

const tools = new Map([[addTool.name, async (input: { a: number; b: number }) => addTool.run(input)]]);

async function model(messages: readonly Message[]): Promise<Turn> {
  const first = messages[0];
  const last = messages[messages.length - 1];
  return nextTurn(first?.role === 'user' ? first.content : '', last?.role === 'tool' ? last.content : undefined);
}

/** Records a step's messages: nothing (the plain loop), or a committed transaction. */
type Journal = (runId: number, seq: number, messages: readonly Message[]) => void;

function sqliteJournal(synchronous: 'NORMAL' | 'FULL'): Journal {
  const db = new Database(temporaryPath('floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec('CREATE TABLE journal (run_id INTEGER, seq INTEGER, record TEXT, PRIMARY KEY (run_id, seq))');
  const insert = db.prepare('INSERT INTO journal VALUES (?, ?, ?)');
  const commit = db.transaction((runId: number, seq: number, messages: readonly Message[]) => {
    for (const [index, message] of messages.entries()) insert.run(runId, seq + index, JSON.stringify(message));
  });
  return (runId, seq, messages) => commit(runId, seq, messages);
}

await measureAndReport(async () => {
  const journal: Journal | undefined =
    variant === 'loop' ? undefined : sqliteJournal(variant === 'sqlite-full' ? 'FULL' : 'NORMAL');
  let runs = 0;
  return {
    async run(calls) {
      const runId = ++runs;
      const messages: Message[] = [{ role: 'user', content: inputFor(calls) }];
      for (;;) {
        const turn = await model(messages);
        const said: Message = { role: 'assistant', turn };
        messages.push(said);
        if (turn.type === 'final') {
          journal?.(runId, messages.length, [said]);
          return turn.text;
        }
        const run = tools.get(addTool.name);
        if (!run) throw new Error('no add tool');
        const answered: Message = { role: 'tool', callId: turn.callId, content: await run(turn.arguments) };
        messages.push(answered);
        journal?.(runId, messages.length - 1, [said, answered]);
      }
    },
    notes:
      variant === 'loop'
        ? 'plain loop, in memory'
        : `plain loop + 2 inserts/step, WAL, synchronous=${variant === 'sqlite-full' ? 'FULL' : 'NORMAL'}`,
  };
});
