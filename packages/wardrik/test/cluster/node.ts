/**
 * One node of the cluster test (`../cluster.test.ts`): a Wardrik on a PostgreSQL schema shared
 * with the other nodes, driving the crash test's agent, until it is killed.
 *
 *   node --conditions=@wardrik/source --import tsx packages/wardrik/test/cluster/node.ts \
 *     <databaseUrl> <schema> <execLogPath> <nodeName>
 *
 * It takes runs over as any node does (recovery, then a claim pass every claimIntervalMs), and
 * obeys one JSON command per line on stdin:
 * - `{"start": N}`: starts N runs, printing `{"runId":…}` as soon as each is durably stored;
 * - `{"answer": OFFSET}`: answers every open `in_doubt` park it sees (another node may answer it
 *   first), choosing `answer` / `retry` / `fail` in turn from OFFSET, printing
 *   `{"answered":…,"decision":…}` for each.
 */
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createWardrik, ParkAlreadyAnsweredError, postgresStore } from 'wardrik';
import { crashAgent } from '../crash/agent.js';

const [databaseUrl, schema, execLogPath, nodeName] = process.argv.slice(2);
if (!databaseUrl || !schema || !execLogPath || !nodeName) {
  process.stderr.write('usage: node.ts <databaseUrl> <schema> <execLogPath> <nodeName>\n');
  process.exit(2);
}
const leaseMs = Number(process.env.CLUSTER_LEASE_MS ?? '1000');

/** One line on stdout, written synchronously so that it reaches the parent even if a SIGKILL follows. */
function print(value: unknown): void {
  writeSync(1, `${JSON.stringify(value)}\n`);
}

const wardrik = await createWardrik({
  store: postgresStore({ connectionString: databaseUrl, max: 4 }, { schema }),
  agents: [
    crashAgent(execLogPath, {}, { toolDelayMs: Number(process.env.CLUSTER_TOOL_DELAY_MS ?? '0'), writeState: true }),
  ],
  node: nodeName,
  leaseMs,
  claimIntervalMs: Math.max(50, Math.floor(leaseMs / 5)),
  toolRetry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 },
  modelRetry: { attempts: 4, baseDelayMs: 2, maxDelayMs: 20 },
});
print({ ready: true, pid: process.pid });

const decisions = ['answer', 'retry', 'fail'] as const;

async function obey(command: { start?: number; answer?: number }): Promise<void> {
  if (command.start !== undefined) {
    for (let index = 0; index < command.start; index++) {
      const { runId } = await wardrik.start('crashy', `order ${index}`);
      print({ runId });
    }
  }
  if (command.answer !== undefined) {
    let turn = command.answer;
    for (const park of await wardrik.listParks({ status: 'open' })) {
      if (park.kind !== 'in_doubt') continue;
      const type = decisions[turn % decisions.length] as (typeof decisions)[number];
      turn += 1;
      const decision =
        type === 'answer'
          ? { type, value: 'it ran' }
          : type === 'retry'
            ? { type, note: 'it did not run' }
            : { type, reason: 'do not send it' };
      try {
        await wardrik.answerPark(park.id, decision, { callHash: park.callHash, by: nodeName });
        print({ answered: park.id, decision: type });
      } catch (thrown) {
        if (!ParkAlreadyAnsweredError.isInstance(thrown)) throw thrown;
      }
    }
  }
  print({ obeyed: true });
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(() =>
    obey(JSON.parse(line) as { start?: number; answer?: number }).catch((thrown: Error) => {
      print({ error: thrown.message });
    }),
  );
});
wardrik.onFailure((error) => {
  process.stderr.write(`node ${nodeName}: the store failed: ${error.message}\n`);
  process.exit(1);
});
