/*
 * Retention's background sweep (issue 29 item 2), on a real SQLite file: 10,000 ended runs older
 * than the rule are purged a batch at a time while 64 runs are live — the live runs go on and end
 * with whole journals, none of them purged — and what was purged is told (metrics, logs). The
 * rules are per agent, and nothing is deleted without one. (The health probe's p99 under the
 * sweep against without it is a benchmark figure: bench/retention.ts.)
 */
import { tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../src/agent.js';
import type { JournalRecord } from '../src/journal/records.js';
import type { Purged } from '../src/runtime/retention-sweep.js';
import { createWardrik } from '../src/runtime/wardrik.js';
import { memoryStore } from '../src/store/memory-store.js';
import type { Store } from '../src/store/store.js';
import { enableMetrics } from '../src/telemetry/metrics.js';
import { ScriptedModel } from '../src/testing/scripted-model.js';
import { openWardrik, tempDbPath } from './helpers.js';

const DAY = 86_400_000;

/** Writes `count` ended runs of `agent`, `ageDays` old, each with 3 journal records, as a node would have. */
async function writeEndedRuns(store: Store, agent: string, count: number, ageDays: number): Promise<void> {
  const at = Date.now() - ageDays * DAY;
  const terms = { node: 'old-node', incarnation: 'old', leaseMs: 60_000 };
  const writes: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const runId = `run_old_${agent}_${ageDays}d_${index}`;
    const records: JournalRecord[] = [
      { v: 4, at, type: 'run-started', agent, principal: 'alice', input: 'hi', budget: {}, maxSteps: 5 },
      {
        v: 4,
        at,
        type: 'model-step',
        step: 1,
        model: 'scripted',
        text: 'done',
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      { v: 4, at, type: 'run-ended', status: 'completed', output: 'done', labels: [], measures: {} },
    ];
    const lease = await store.claimRun(runId, terms);
    writes.push(
      store
        .write(
          {
            runId,
            run: {
              id: runId,
              agent,
              principal: 'alice',
              status: 'completed',
              createdAt: at,
              updatedAt: at,
              measures: {},
              labels: [],
              output: 'done',
            },
            records: records.map((record, seq) => ({ runId, seq: seq + 1, record })),
            ...(lease ? { lease } : {}),
          },
          { durable: false },
        )
        .then(() => (lease ? store.releaseLease(lease) : undefined)),
    );
  }
  await Promise.all(writes);
}

function liveAgent(name: string) {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a key up.',
    schema: { key: { type: 'string', required: true } },
    annotations: { readOnly: true },
    run: async ({ key }) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { key, value: 42 };
    },
  });
  const update = tool({
    name: 'update',
    description: 'Changes a record (not repeatable).',
    schema: { key: { type: 'string', required: true } },
    run: ({ key }) => ({ key, updated: true }),
  });
  const model = new ScriptedModel((request) =>
    request.step <= 20
      ? { toolCalls: [{ name: request.step % 2 ? 'lookup' : 'update', arguments: { key: `k${request.step}` } }] }
      : { text: 'done' },
  );
  return defineAgent({ name, instructions: '', model, tools: [lookup, update], maxSteps: 30 });
}

describe('the retention sweep', () => {
  it('purges 10,000 ended runs a batch at a time while 64 runs are live; the live runs go on whole', async () => {
    const wardrik = await openWardrik(tempDbPath(), [liveAgent('support')], {
      retention: { endedRunsDays: 30, sweepIntervalMs: 3_600_000, batchSize: 500 },
    });
    const metrics = enableMetrics(wardrik, { processMetrics: false });
    const purged: Purged[] = [];
    wardrik.retention.onPurged((event) => purged.push(event));
    try {
      await writeEndedRuns(wardrik.store, 'support', 10_000, 40);
      await writeEndedRuns(wardrik.store, 'support', 50, 10); // newer than the rule: kept
      const live = await Promise.all(
        Array.from({ length: 64 }, (_, index) => wardrik.start('support', `live ${index}`)),
      );

      const totals = await wardrik.retention.sweep();

      expect(totals).toEqual({ runs: 10_000, journalRecords: 30_000, sessions: 0, memories: 0, artifactVersions: 0 });
      // A batch at a time, each told as it went.
      const runBatches = purged.filter((event) => event.kind === 'runs');
      expect(runBatches).toHaveLength(20);
      expect(runBatches.every((event) => event.count === 500 && event.by === 'sweep')).toBe(true);
      const results = await Promise.all(live.map(({ runId }) => wardrik.wait(runId)));
      expect(results.map((result) => result.status)).toEqual(live.map(() => 'completed'));
      for (const { runId } of live) {
        const journal = (await wardrik.getRun(runId)).journal;
        expect(journal.map((stored) => stored.seq)).toEqual(journal.map((_, index) => index + 1));
        expect(journal.filter((stored) => stored.record.type === 'call-answered')).toHaveLength(20);
      }
      const left = await wardrik.listRuns();
      expect(left.filter((run) => run.id.startsWith('run_old_'))).toHaveLength(50);
      expect(await metrics.render()).toMatch(/wardrik_purged_total\{kind="runs"\} 10000\b/);
      expect(await metrics.render()).toMatch(/wardrik_purged_total\{kind="journal_records"\} 30000\b/);
    } finally {
      metrics.stop();
      await wardrik.close();
    }
  }, 120_000);

  it("applies each agent's own rules, and the general rule to every other agent", async () => {
    const wardrik = await openWardrik(tempDbPath(), [liveAgent('support'), liveAgent('audit')], {
      retention: { endedRunsDays: 30, agents: { audit: { endedRunsDays: 'forever' } }, sweepIntervalMs: 3_600_000 },
    });
    try {
      await writeEndedRuns(wardrik.store, 'support', 5, 40);
      await writeEndedRuns(wardrik.store, 'audit', 5, 400);
      await writeEndedRuns(wardrik.store, 'retired', 5, 40); // no node defines it: the general rule
      expect(await wardrik.retention.sweep()).toMatchObject({ runs: 10 });
      expect((await wardrik.listRuns()).map((run) => run.agent)).toEqual(Array(5).fill('audit'));
    } finally {
      await wardrik.close();
    }
  });

  it('sweeps on one node at a time: of two nodes sharing a store, one sweeps, the other leaves it', async () => {
    const store = memoryStore();
    const retention = { endedRunsDays: 30, sweepIntervalMs: 3_600_000 };
    const nodes = await Promise.all(
      ['a', 'b'].map((node) => createWardrik({ store, agents: [liveAgent('support')], node, retention })),
    );
    try {
      await writeEndedRuns(store, 'support', 1_200, 40);
      const [first, second] = await Promise.all(nodes.map((node) => node.retention.sweep()));
      expect(first).toMatchObject({ runs: 1_200 });
      expect(second).toBeUndefined(); // node a held the sweep
      // Given back once done: the next sweep may be either node's.
      expect(await nodes[1]?.retention.sweep()).toMatchObject({ runs: 0 });
    } finally {
      for (const node of nodes) await node.close();
    }
  });

  it('deletes nothing without a rule', async () => {
    const wardrik = await openWardrik(tempDbPath(), [liveAgent('support')]);
    try {
      await writeEndedRuns(wardrik.store, 'support', 5, 4000);
      expect(wardrik.retention.sweeps).toBe(false);
      expect(await wardrik.retention.sweep()).toBeUndefined();
      expect(await wardrik.listRuns()).toHaveLength(5);
    } finally {
      await wardrik.close();
    }
  });

  it('refuses rules that make no sense, naming them', async () => {
    await expect(
      openWardrik(tempDbPath(), [liveAgent('support')], { retention: { endedRunsDays: 0 } }),
    ).rejects.toThrow(/retention\.endedRunsDays: expected a number of days above 0, or 'forever', got 0/);
    await expect(
      openWardrik(tempDbPath(), [liveAgent('support')], { retention: { agents: { support: { keep: 3 } } } as never }),
    ).rejects.toThrow(/retention\.agents\.support\.keep: unknown rule/);
  });
});
