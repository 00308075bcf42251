import { readFileSync } from 'node:fs';
import { ok, tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { defineAgent, type StoredRecord, StoreError, sqliteStore } from '../src/index.js';
import { JOURNAL_VERSION } from '../src/journal/records.js';
import { rebuildState } from '../src/journal/state.js';
import { checkJournal } from '../src/journal/versions.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

// Journals written by the first format version. They must keep loading after any later change:
// never edit these files; add an upgrade in src/journal/versions.ts instead.
function fixture(name: string): StoredRecord[] {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
}

describe('journal format version 1', () => {
  it('a completed run rebuilds from its journal alone', () => {
    const journal = checkJournal('fixture', fixture('journal-v1-completed.json'));
    const runId = journal[0]!.runId;
    const state = rebuildState(runId, journal);
    expect(state).toMatchObject({
      status: 'completed',
      agent: 'fixture',
      principal: 'alice',
      input: 'refund the customer',
      steps: 3,
      labels: ['outside'],
      openParks: 0,
      lastSeq: 12,
    });
    expect(state.output).toBe('done {"refunded":500}');
    expect(state.measures.usd).toBeCloseTo(0.011);
    expect(state.measures).toMatchObject({ inputTokens: 30, outputTokens: 15 });
    expect([...state.parks.values()].map((park) => [park.kind, park.status, park.decision])).toEqual([
      ['tool', 'answered', { type: 'retry', note: 'ok' }],
    ]);
    expect(state.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it("a parked run from a version 1 journal is answered and finished by today's runtime", async () => {
    const journal = fixture('journal-v1-parked.json');
    const runId = journal[0]!.runId;
    const state = rebuildState(runId, journal);
    const path = tempDbPath();
    const store = sqliteStore(path);
    await store.migrate();
    const park = [...state.parks.values()][0]!;
    const { status: _status, decision: _decision, ...parkRecord } = park;
    await store.write(
      {
        runId,
        records: journal,
        run: {
          id: runId,
          agent: state.agent,
          principal: state.principal,
          status: 'parked',
          createdAt: state.createdAt,
          updatedAt: state.updatedAt,
          measures: state.measures,
          labels: state.labels,
        },
        parks: [parkRecord],
      },
      { durable: true },
    );
    await store.close();

    const refund = tool({
      name: 'refund',
      description: 'refund',
      schema: { amount: { type: 'number', required: true } },
      run: ({ amount }) => ok({ refunded: amount }),
    });
    const page = tool({ name: 'fetch_page', description: 'page', annotations: { readOnly: true }, run: () => '' });
    const model = new ScriptedModel([{ text: 'unused' }, { text: 'unused' }, { text: 'finished from v1' }]);
    const wardrik = await openWardrik(path, [
      defineAgent({ name: 'fixture', instructions: '', model, tools: [page, refund] }),
    ]);
    try {
      const [open] = await wardrik.listParks({ status: 'open' });
      expect(open?.callHash).toBe(park.callHash);
      await wardrik.answerPark(open!.id, { type: 'retry' }, { callHash: open!.callHash });
      const result = await wardrik.wait(runId);
      expect(result).toMatchObject({ status: 'completed', output: 'finished from v1', labels: ['outside'] });
    } finally {
      await wardrik.close();
    }
  });

  it('a run failed by a cut-off model step (truncated, with cache writes measured) rebuilds', () => {
    const journal = checkJournal('fixture', fixture('journal-v1-truncated.json'));
    const runId = journal[0]!.runId;
    expect(rebuildState(runId, journal)).toMatchObject({ status: 'failed', truncated: true, calls: [] });
    // Without its end (a crash right after the step): still truncated, with no call left to run.
    const beforeEnd = rebuildState(runId, journal.slice(0, -1));
    expect(beforeEnd).toMatchObject({ status: 'running', truncated: true, calls: [], steps: 1 });
    expect(beforeEnd.measures).toEqual({ inputTokens: 120, outputTokens: 30, cacheWriteInputTokens: 100, usd: 0.002 });
  });

  it('a record of an unknown future version is refused with a clear error', () => {
    const journal = fixture('journal-v1-parked.json');
    const next = JOURNAL_VERSION + 1;
    const future = [...journal, { ...journal[1]!, seq: 99, record: { ...journal[1]!.record, v: next } }];
    expect(() => checkJournal('r1', future)).toThrow(
      `run r1, record 99: journal format version ${next} is not one this Wardrik reads (1 to ${JOURNAL_VERSION})`,
    );
    expect(() => checkJournal('r1', future)).toThrow(StoreError);
  });
});

describe('journal format version 5', () => {
  it("a call's questions to a person (input parks) rebuild without the run ever counting as parked", () => {
    const journal = checkJournal('fixture', fixture('journal-v5-input.json'));
    const state = rebuildState(journal[0]!.runId, journal);
    expect(state).toMatchObject({ status: 'completed', openParks: 0 });
    expect([...state.parks.values()].map((park) => [park.kind, park.status, park.decision?.type])).toEqual([
      ['input', 'answered', 'stop'],
      ['input', 'answered', 'answer'],
    ]);
    // Rebuilt up to the first question only: the run is running, its call waiting, the question open.
    const asking = journal.findIndex(({ record }) => record.type === 'input-requested');
    const midway = rebuildState(journal[0]!.runId, journal.slice(0, asking + 1));
    expect(midway.status).toBe('running');
    expect(midway.openParks).toBe(0);
    expect([...midway.parks.values()].map((park) => park.status)).toEqual(['open']);
    expect(midway.calls[0]?.status).toBe('started');
  });
});
