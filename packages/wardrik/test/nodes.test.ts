/*
 * Several nodes on one store (issue 13): runtimes sharing one MemoryStore, which keeps leases,
 * requests and signals as a store shared by many processes does (PostgreSQL). A park answered on
 * any node resumes its run; an answer or a cancel for a run another node drives reaches it; a
 * run's events and its end reach other nodes; a node that loses a run's lease never writes to it
 * again, and the node that takes it over recovers it as a restart would.
 */
import { ok, park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClaimOptions,
  createWardrik,
  defineAgent,
  type Lease,
  type LeaseTerms,
  type RunEvent,
  type Store,
  type Wardrik,
} from '../src/index.js';
import { rebuildState } from '../src/journal/state.js';
import { lastToolResults, MemoryStore, ScriptedModel } from '../src/testing/index.js';
import { after, DELAYS, describeDelay, until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

/** Stores for several nodes sharing one store: the same memory store, or connections to one schema. */
interface Cluster {
  readonly name: string;
  /** The store node `name` uses. */
  store(name: string): Store;
  close(): Promise<void>;
}

const clusters: ReadonlyArray<{ name: string; make: () => Cluster }> = [
  {
    name: 'one MemoryStore',
    make: () => {
      const shared = new MemoryStore();
      return { name: 'memory', store: () => shared, close: async () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    make: () => {
      const schema = testSchemaName();
      return {
        name: 'postgres',
        store: () => openPostgresTestStore({ schema, keepSchema: true }),
        close: () => dropTestSchema(schema),
      };
    },
  },
];

let executed: string[] = [];
let release: (() => void) | undefined;
const opened: Wardrik[] = [];
let cluster: Cluster | undefined;
afterEach(async () => {
  release?.();
  sent?.();
  const failures = opened.flatMap((wardrik) =>
    wardrik.failure ? [`${wardrik.node}: ${wardrik.failure.message}`] : [],
  );
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  // A node whose store failed may have looked fine to the test: it must not have.
  expect(failures).toEqual([]);
  await cluster?.close();
  cluster = undefined;
  executed = [];
  release = undefined;
  sent = undefined;
});

/** Parks until a person says run it. */
const refund = tool({
  name: 'refund',
  description: 'Refund an order; waits for a person.',
  schema: { order: { type: 'string', required: true } },
  run: ({ order }, context) => {
    if (!context.approval) return park(`refund of ${order} needs a person`);
    executed.push(`refund ${order} on ${context.runId}`);
    return ok({ refunded: order });
  },
});
/** Read-only, and slow until the test releases it. */
const lookup = tool({
  name: 'lookup',
  description: 'Look an order up.',
  schema: { order: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: async ({ order }) => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { order, status: 'shipped' };
  },
});
/** Not repeatable, and answers only when the test says (`sent`). */
let sent: (() => void) | undefined;
const sendEmail = tool({
  name: 'send_email',
  description: 'Send an email.',
  schema: {},
  run: async () => {
    executed.push('send_email');
    await new Promise<void>((resolve) => {
      sent = resolve;
    });
    return 'sent by the first node';
  },
});

function agent(calls: Array<{ name: string; arguments: object }>) {
  const model = new ScriptedModel([
    { toolCalls: calls },
    (request) => ({ text: `done: ${JSON.stringify(lastToolResults(request).map((message) => message.content))}` }),
  ]);
  return defineAgent({ name: 'clerk', instructions: '', model, tools: [refund, lookup, sendEmail] });
}

async function node(
  store: Store,
  name: string,
  calls: Array<{ name: string; arguments: object }>,
  options: { leaseMs?: number } = {},
) {
  const wardrik = await createWardrik({
    store,
    agents: [agent(calls)],
    node: name,
    leaseMs: options.leaseMs ?? 60_000,
    claimIntervalMs: 20,
  });
  opened.push(wardrik);
  return wardrik;
}

async function checkJournal(wardrik: Wardrik, runId: string): Promise<void> {
  const run = await wardrik.getRun(runId);
  expect(run.journal.map((each) => each.seq)).toEqual(run.journal.map((_, index) => index + 1));
  expect(rebuildState(runId, run.journal).status).toBe(run.status);
}

describe.each(clusters)('several nodes on $name', ({ make }) => {
  it('a park made on node A is answered on node B, which drives the run to its end', async () => {
    cluster = make();
    const calls = [{ name: 'refund', arguments: { order: 'A1' } }];
    const [a, b] = [await node(cluster.store('a'), 'a', calls), await node(cluster.store('b'), 'b', calls)];
    const parked = await a.run('clerk', 'refund please');
    expect(parked.status).toBe('parked');
    const [held] = parked.parks;
    await b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'bob' });
    expect(await b.wait(parked.runId)).toMatchObject({ status: 'completed' });
    expect(await a.wait(parked.runId)).toMatchObject({ status: 'completed' });
    expect(executed).toEqual([`refund A1 on ${parked.runId}`]);
    await checkJournal(b, parked.runId);
  });

  it('a park answered on node B while node A still runs the step’s other call: A journals the answer and finishes', async () => {
    cluster = make();
    const store = cluster.store('a');
    const calls = [
      { name: 'refund', arguments: { order: 'A1' } },
      { name: 'lookup', arguments: { order: 'A1' } },
    ];
    const [a, b] = [await node(store, 'a', calls), await node(cluster.store('b'), 'b', calls)];
    const { runId } = await a.start('clerk', 'refund please');
    await until(async () => (await store.listParks({ runId, status: 'open' })).length === 1);
    const [held] = await store.listParks({ runId, status: 'open' });
    // A holds the run (its lookup is running): B's answer is a request A acts on.
    await b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'bob' });
    expect((await store.getPark(held!.id))?.status).toBe('answered');
    await until(() => release !== undefined);
    release?.();
    expect(await a.wait(runId)).toMatchObject({ status: 'completed' });
    expect(executed).toEqual([`refund A1 on ${runId}`]);
    const journal = (await a.getRun(runId)).journal.map((each) => each.record);
    expect(journal.filter((record) => record.type === 'park-answered')).toMatchObject([{ by: 'bob' }]);
    await checkJournal(a, runId);
  });

  it.each(DELAYS)(
    'a park answered on node B %s after node A journals the step’s other call (A parks meanwhile): the run completes once',
    async (_, delay) => {
      cluster = make();
      const store = cluster.store('a');
      const calls = [
        { name: 'refund', arguments: { order: 'A1' } },
        { name: 'lookup', arguments: { order: 'A1' } },
      ];
      const [a, b] = [await node(store, 'a', calls), await node(cluster.store('b'), 'b', calls)];
      const { runId } = await a.start('clerk', 'refund please');
      await until(async () => (await store.listParks({ runId, status: 'open' })).length === 1);
      const [held] = await store.listParks({ runId, status: 'open' });
      const answered = new Promise<void>((resolve, reject) => {
        const unsubscribe = a.subscribe(runId, (event) => {
          if (event.record.type !== 'call-answered') return;
          unsubscribe();
          after(delay, () =>
            b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'bob' }).then(resolve, reject),
          );
        });
      });
      await until(() => release !== undefined);
      release?.();
      await answered;
      expect(await a.wait(runId), describeDelay(delay)).toMatchObject({ status: 'completed' });
      expect(await b.wait(runId)).toMatchObject({ status: 'completed' });
      expect(executed).toEqual([`refund A1 on ${runId}`]);
      await checkJournal(a, runId);
    },
  );

  it('a cancel sent to node B for a run node A drives reaches A; B hears how it ended', async () => {
    cluster = make();
    const store = cluster.store('a');
    const calls = [{ name: 'lookup', arguments: { order: 'A1' } }];
    const [a, b] = [await node(store, 'a', calls), await node(cluster.store('b'), 'b', calls)];
    const { runId } = await a.start('clerk', 'look it up');
    await until(() => release !== undefined);
    const cancelled = await b.cancel(runId, 'changed my mind');
    expect(cancelled).toMatchObject({ status: 'cancelled', error: 'changed my mind' });
    expect(await a.wait(runId)).toMatchObject({ status: 'cancelled' });
    expect(await store.requests(runId)).toEqual({ answers: [] });
    await checkJournal(a, runId);
  });

  it("a run's events are followed live on another node", async () => {
    cluster = make();
    const calls = [{ name: 'lookup', arguments: { order: 'A1' } }];
    const [a, c] = [await node(cluster.store('a'), 'a', calls), await node(cluster.store('c'), 'c', calls)];
    const { runId } = await a.start('clerk', 'look it up');
    const seen: RunEvent[] = [];
    const following = (async () => {
      for await (const event of c.follow(runId)) seen.push(event);
    })();
    await until(() => release !== undefined);
    release?.();
    await following;
    expect(seen.map((event) => event.type)).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'call-answered',
      'model-step',
      'run-ended',
    ]);
  });
});

describe('several nodes on one MemoryStore whose clock the test moves', () => {
  it('a node that loses a lease stops at once and never writes again; the node taking over recovers the run', async () => {
    let clock = 1_000_000;
    const store = new MemoryStore({ now: () => clock });
    const calls = [{ name: 'send_email', arguments: {} }];
    const a = await node(store, 'a', calls, { leaseMs: 1_000 });
    const { runId } = await a.start('clerk', 'mail them');
    await until(() => executed.includes('send_email'));
    // A stops renewing (paused): its lease runs out by the store's clock, and B takes the run over.
    clock += 60_000;
    const b = await node(store, 'b', calls, { leaseMs: 1_000 });
    const result = await b.wait(runId);
    // The email may have been sent: B never sends it again on its own, it asks a person.
    expect(result).toMatchObject({ status: 'parked', parks: [{ kind: 'in_doubt', call: { name: 'send_email' } }] });
    expect(executed).toEqual(['send_email']);
    // A learns at its next renewal that it lost the run, and stops driving it.
    await until(() => a.activeRuns === 0, 10_000);
    await checkJournal(b, runId);
    const [inDoubt] = result.parks;
    await b.answerPark(inDoubt!.id, { type: 'answer', value: 'sent' }, { callHash: inDoubt!.callHash });
    expect(await b.wait(runId)).toMatchObject({ status: 'completed', output: 'done: ["sent"]' });
    await checkJournal(b, runId);
  });

  it('a paused node that wakes after its run was taken over cannot append to it (its lease is fenced)', async () => {
    let clock = 1_000_000;
    const store = new MemoryStore({ now: () => clock });
    const calls = [{ name: 'send_email', arguments: {} }];
    // A renews only every 20 s: within this test it never notices on its own that it lost the run.
    const a = await node(store, 'a', calls, { leaseMs: 60_000 });
    const { runId } = await a.start('clerk', 'mail them');
    await until(() => sent !== undefined);
    const pausedSend = sent;
    clock += 120_000; // A was paused past its lease
    const b = await node(store, 'b', calls, { leaseMs: 60_000 });
    const taken = await b.wait(runId);
    expect(taken).toMatchObject({ status: 'parked', parks: [{ kind: 'in_doubt' }] });
    const before = (await b.getRun(runId)).journal.length;
    pausedSend?.(); // A wakes up: its tool answers, and A tries to journal the answer
    await until(() => a.activeRuns === 0, 10_000);
    const after = (await b.getRun(runId)).journal;
    expect(after).toHaveLength(before);
    expect(after.some((each) => each.record.type === 'call-answered')).toBe(false);
    await checkJournal(b, runId);
  });

  it('a node that claims back a run it lost while its old driver still stops (a write hangs) drives it once that one has stopped', async () => {
    /** Writes that start a call wait until the test opens the gate (a commit that hangs). */
    class SlowCommitStore extends MemoryStore {
      gate: Promise<void> | undefined;
      held = 0;
      readonly claimed: Lease[] = [];
      override async claimRuns(...args: Parameters<MemoryStore['claimRuns']>) {
        const leases = await super.claimRuns(...args);
        this.claimed.push(...leases);
        return leases;
      }
      override async write(...args: Parameters<MemoryStore['write']>) {
        if (this.gate && args[0].records.some((each) => each.record.type === 'call-started')) {
          this.held += 1;
          await this.gate;
        }
        return super.write(...args);
      }
    }
    let clock = 1_000_000;
    const store = new SlowCommitStore({ now: () => clock });
    let open!: () => void;
    store.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const calls = [{ name: 'send_email', arguments: {} }];
    const a = await node(store, 'a', calls, { leaseMs: 1_000 });
    const { runId } = await a.start('clerk', 'mail them');
    await until(() => store.held === 1);
    // A's lease runs out by the store's clock while the write hangs; A itself claims the run again.
    clock += 60_000;
    await until(() => store.claimed.some((lease) => lease.runId === runId && lease.node === 'a'));
    store.gate = undefined;
    open(); // the old write goes on, under the lost lease: refused
    await until(() => sent !== undefined);
    sent?.();
    expect(await a.wait(runId)).toMatchObject({ status: 'completed', output: 'done: ["sent by the first node"]' });
    expect(executed).toEqual(['send_email']);
    await checkJournal(a, runId);
  });

  it('a node that cannot renew its leases for a whole lease stops driving; another node takes the runs over', async () => {
    /** A store node `a` can no longer reach for leases once it is cut off (the others still can). */
    class PartitionedStore extends MemoryStore {
      cutOff = false;
      #check(node: string): void {
        if (this.cutOff && node === 'a') throw new Error('connection reset');
      }
      override async renewLeases(terms: LeaseTerms) {
        this.#check(terms.node);
        return super.renewLeases(terms);
      }
      override async claimRuns(terms: LeaseTerms, limit: number, options?: ClaimOptions) {
        this.#check(terms.node);
        return super.claimRuns(terms, limit, options);
      }
      override async claimRun(runId: string, terms: LeaseTerms) {
        this.#check(terms.node);
        return super.claimRun(runId, terms);
      }
    }
    const store = new PartitionedStore();
    const calls = [{ name: 'lookup', arguments: { order: 'A1' } }];
    const a = await node(store, 'a', calls, { leaseMs: 300 });
    const { runId } = await a.start('clerk', 'look it up');
    await until(() => release !== undefined);
    const first = release;
    release = undefined;
    store.cutOff = true; // A can no longer tell whether it still holds the run
    await until(() => a.activeRuns === 0, 10_000);
    const b = await node(store, 'b', calls, { leaseMs: 300 });
    await until(() => release !== undefined, 10_000); // B repeats the read-only call
    release?.();
    first?.();
    expect(await b.wait(runId)).toMatchObject({ status: 'completed' });
    await checkJournal(b, runId);
  });

  it('a node whose answer fails after it took the run gives the run back: an answer on another node then drives it', async () => {
    /** A read of the requests other nodes left that fails once, when told to. */
    class BlinkingStore extends MemoryStore {
      failNextRequests = false;
      override async requests(runId: string) {
        if (this.failNextRequests) {
          this.failNextRequests = false;
          throw new Error('the network blinked');
        }
        return super.requests(runId);
      }
    }
    const store = new BlinkingStore();
    const calls = [{ name: 'refund', arguments: { order: 'A7' } }];
    const a = await node(store, 'a', calls);
    const b = await node(store, 'b', calls);
    const parked = await a.run('clerk', 'refund it');
    const [held] = parked.parks;
    store.failNextRequests = true;
    await expect(b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash })).rejects.toThrow(
      'the network blinked',
    );
    await a.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash });
    expect(await a.wait(parked.runId)).toMatchObject({ status: 'completed' });
    expect(executed).toEqual([`refund A7 on ${parked.runId}`]);
  });

  it('a run whose load fails while a node takes runs over is given back (not held with nobody driving it), and the runs claimed with it are driven', async () => {
    /** A journal read that fails once, when told to (not a store failure: the runtime goes on). */
    class BlinkingStore extends MemoryStore {
      failNextLoad = false;
      override async loadJournal(runId: string, afterSeq?: number) {
        if (this.failNextLoad) {
          this.failNextLoad = false;
          throw new Error('the network blinked');
        }
        return super.loadJournal(runId, afterSeq);
      }
    }
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reads = 0;
    const slowRead = tool({
      name: 'slow_read',
      description: 'Reads, once the test opens the gate.',
      schema: {},
      annotations: { readOnly: true },
      run: async () => {
        reads += 1;
        await gate;
        return 'read';
      },
    });
    const reader = () =>
      defineAgent({
        name: 'reader',
        instructions: '',
        tools: [slowRead],
        model: new ScriptedModel((request) =>
          request.step === 1 ? { toolCalls: [{ name: 'slow_read', arguments: {} }] } : { text: 'done' },
        ),
      });
    let clock = 1_000_000;
    const store = new BlinkingStore({ now: () => clock });
    const start = async (name: string, claimIntervalMs: number) => {
      const wardrik = await createWardrik({
        store,
        agents: [reader()],
        node: name,
        leaseMs: 1_000,
        claimIntervalMs,
      });
      opened.push(wardrik);
      return wardrik;
    };
    const a = await start('a', 60_000); // never looks for runs to take back within the test
    const runs = [await a.start('reader', 'one'), await a.start('reader', 'two')].map(({ runId }) => runId);
    await until(() => reads === 2);
    const b = await start('b', 20);
    store.failNextLoad = true;
    clock += 60_000; // A paused past its leases: B takes both runs over, and loading one of them fails
    await until(() => !store.failNextLoad && reads === 4, 60_000);
    open();
    for (const runId of runs) expect(await b.wait(runId)).toMatchObject({ status: 'completed', output: 'done' });
    expect(b.failure).toBeUndefined();
  });
});
