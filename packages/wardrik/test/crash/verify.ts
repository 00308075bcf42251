/**
 * What the crash and cluster tests check once every run has ended: the journals (as the store
 * keeps them) against the exec log of real tool executions.
 *
 * (1) a call that is not repeatable (`send_email`) ran at most once per go-ahead: once on its own,
 * once more per person's `retry`; (2) no run is lost and every run completed; (3) an execution
 * whose answer is not in the journal was parked `in_doubt`; (4) every repeatable call completed
 * with the answer of one of its real executions. Also: no model step journaled twice, every call
 * answered exactly once, every park answered.
 */
import { expect } from 'vitest';
import type { JournalRecord, Park, ParkDecision } from '../../src/journal/records.js';
import { type ExecLine, stateKey } from './agent.js';

/** What the store holds, read back row by row. */
export interface StoredRuns {
  /** Runs a process reported it started: each must be in the store. */
  readonly runIds: Iterable<string>;
  readonly runs: ReadonlyArray<{
    readonly id: string;
    readonly status: string;
    readonly agent?: string;
    /** The row's summary (JSON): its error, for the message of a run that did not complete. */
    readonly summary?: string;
  }>;
  readonly journal: ReadonlyArray<{ readonly run_id: string; readonly seq: number; readonly record: string }>;
  readonly parkRows: ReadonlyArray<{
    readonly id: string;
    readonly status: string;
    readonly decision: string | null;
  }>;
  readonly execs: readonly ExecLine[];
  /** Nonces of send_email answers a model was shown. */
  readonly seenNonces: ReadonlySet<string>;
}

/** What was found, for the test's report. */
export interface ExecutionStats {
  readonly lostEmails: number;
  readonly lostAfterSeen: number;
  readonly emailParksNotRun: number;
  readonly repeatedRepeatable: number;
  readonly inDoubt: number;
}

export function verifyExecutions(stored: StoredRuns): ExecutionStats {
  const { runs, journal, parkRows, execs, seenNonces } = stored;
  interface CallView {
    readonly key: string;
    readonly name: string;
    /** call-started records (one per try, recoveries included). */
    starts: number;
    answers: { seq: number; answer: { type: string; value?: unknown } }[];
    /** The call's in-doubt parks, in journal order. */
    parks: { id: string; seq: number; decision?: ParkDecision }[];
  }
  const calls = new Map<string, CallView>();
  const endedStatus = new Map<string, string>();
  const parkDecisions = new Map<string, ParkDecision>();
  for (const row of parkRows) if (row.decision) parkDecisions.set(row.id, JSON.parse(row.decision) as ParkDecision);
  const stepsSeen = new Set<string>();
  /** The child run each call of an agent tool started. */
  const childOf = new Map<string, string>();
  for (const row of journal) {
    const entry = JSON.parse(row.record) as JournalRecord;
    const key = (callId: string) => `${row.run_id}:${callId}`;
    const view = (callId: string): CallView => {
      const found = calls.get(key(callId));
      if (!found) throw new Error(`run ${row.run_id} seq ${row.seq}: ${entry.type} names unknown call ${callId}`);
      return found;
    };
    switch (entry.type) {
      case 'model-step': {
        const step = `${row.run_id}#${entry.step}`;
        expect(stepsSeen.has(step), `model step ${step} journaled twice`).toBe(false);
        stepsSeen.add(step);
        for (const call of entry.toolCalls) {
          calls.set(key(call.callId), { key: key(call.callId), name: call.name, starts: 0, answers: [], parks: [] });
        }
        break;
      }
      case 'call-started':
        expect(entry.idempotencyKey).toBe(key(entry.callId));
        view(entry.callId).starts += 1;
        break;
      case 'call-answered':
        view(entry.callId).answers.push({ seq: row.seq, answer: entry.answer as { type: string; value?: unknown } });
        break;
      case 'run-parked': {
        const park: Park = entry.park;
        // A parent waits on its child run (an agent called as a tool) while the child is parked.
        if (park.kind === 'external') {
          expect(park.handle).toBe(`child:${childOf.get(key(park.call?.callId ?? ''))}`);
          break;
        }
        expect(park.kind).toBe('in_doubt');
        expect(park.call?.idempotencyKey).toBe(key(park.call?.callId ?? ''));
        const decision = parkDecisions.get(park.id);
        view(park.call?.callId ?? '').parks.push({ id: park.id, seq: row.seq, ...(decision ? { decision } : {}) });
        break;
      }
      case 'run-ended':
        endedStatus.set(row.run_id, entry.status);
        break;
      case 'child-run-started':
        // One child a call, however often the call was repeated.
        expect(childOf.get(key(entry.callId)) ?? entry.childRunId, `call ${key(entry.callId)}'s child`).toBe(
          entry.childRunId,
        );
        childOf.set(key(entry.callId), entry.childRunId);
        break;
    }
  }
  const byNonce = new Map(execs.map((exec) => [exec.nonce, exec]));
  const answeredNonce = (call: CallView) =>
    call.answers.map((each) => (each.answer.value as { nonce?: string } | undefined)?.nonce).find(Boolean);

  // (2) No run is lost: every run a child reported is in the file, and every run completed.
  for (const runId of stored.runIds)
    expect(
      runs.some((run) => run.id === runId),
      `run ${runId} lost`,
    ).toBe(true);
  for (const run of runs) {
    expect(run.status, `run ${run.id} (${run.agent ?? '?'}) ${run.summary ?? ''}`).toBe('completed');
    expect(endedStatus.get(run.id), `run ${run.id} has no run-ended record`).toBe('completed');
  }
  expect(parkRows.filter((park) => park.status !== 'answered')).toEqual([]);

  // Every execution belongs to a call of the journal, of the same tool.
  for (const exec of execs) {
    expect(calls.get(exec.idempotencyKey)?.name, `execution ${JSON.stringify(exec)}`).toBe(exec.tool);
    expect(exec.idempotencyKey).toBe(`${exec.runId}:${exec.callId}`);
  }
  const execsOf = (key: string) => execs.filter((exec) => exec.idempotencyKey === key);

  let lostEmails = 0;
  let lostAfterSeen = 0;
  let emailParksNotRun = 0;
  let repeatedRepeatable = 0;
  for (const call of calls.values()) {
    expect(call.answers.length, `call ${call.key} answered ${call.answers.length} times`).toBe(1);
    const answer = call.answers[0]?.answer;
    const ran = execsOf(call.key);
    if (call.name === 'transfer_to_agent') {
      expect(answer, `transfer ${call.key}`).toMatchObject({ type: 'ok', value: { transferred_to: 'crashy' } });
      continue;
    }
    if (call.name === 'crashy') {
      // The agent called as a tool: answered once, with its child run's final answer.
      const child = childOf.get(call.key);
      expect(child, `call ${call.key} started no child run`).toBeDefined();
      expect(endedStatus.get(child ?? ''), `child run ${child}`).toBe('completed');
      expect(answer, `call ${call.key}`).toMatchObject({ type: 'ok', value: 'done' });
      continue;
    }
    if (call.name !== 'send_email') {
      // (4) Every repeatable call completes with the answer of one of its real executions.
      expect(call.parks, `repeatable call ${call.key} parked`).toEqual([]);
      expect(answer?.type, `call ${call.key}`).toBe('ok');
      expect(byNonce.get(answeredNonce(call) ?? '')?.idempotencyKey, `call ${call.key}`).toBe(call.key);
      if (ran.length > 1) repeatedRepeatable += 1;
      continue;
    }
    // Each execution of send_email had its own intent on disk before it ran.
    expect(ran.length, `send_email ${call.key} ran more often than its intents`).toBeLessThanOrEqual(call.starts);
    // (1) send_email ran at most once per go-ahead: once on its own, once more per `retry` answer.
    const retries = call.parks.filter((park) => park.decision?.type === 'retry').map((park) => park.id);
    expect(ran.length, `send_email ${call.key} ran ${ran.length} times with ${retries.length} retries`).toBeLessThan(
      2 + retries.length,
    );
    for (const approval of new Set(ran.map((exec) => exec.approval))) {
      if (approval !== null) expect(retries, `send_email ${call.key} ran under park ${approval}`).toContain(approval);
      expect(ran.filter((exec) => exec.approval === approval).length, `send_email ${call.key}`).toBe(1);
    }
    // (3) An execution whose answer is not in the journal was parked in_doubt: the park after the
    // go-ahead it ran under (the first park when it ran on its own).
    const kept = answeredNonce(call);
    for (const exec of ran) {
      if (exec.nonce === kept) continue;
      lostEmails += 1;
      if (seenNonces.has(exec.nonce)) lostAfterSeen += 1;
      const index = exec.approval === null ? 0 : call.parks.findIndex((park) => park.id === exec.approval) + 1;
      expect(call.parks[index], `send_email ${call.key} ran (${exec.nonce}) and its answer was lost`).toBeDefined();
    }
    // Its answer is the answer of a real execution, or a person's.
    if (kept !== undefined) expect(byNonce.get(kept)?.idempotencyKey).toBe(call.key);
    else expect(call.parks.length, `send_email ${call.key} answered without running or a park`).toBeGreaterThan(0);
    // Parks for a try that never reached the tool (killed after the intent, before the effect).
    for (let index = 0; index < call.parks.length; index++) {
      const allowedBy = index === 0 ? null : (call.parks[index - 1]?.id as string);
      if (!ran.some((exec) => exec.approval === allowedBy)) emailParksNotRun += 1;
    }
  }
  const inDoubt = [...calls.values()].reduce((sum, call) => sum + call.parks.length, 0);
  return { lostEmails, lostAfterSeen, emailParksNotRun, repeatedRepeatable, inDoubt };
}

/**
 * State writes under kills: what the store holds is exactly what the journals' answers carry (a
 * call repeated after a crash or a take-over applied its writes once, with the answer the journal
 * holds; a node that lost a run applied none), and each stored nonce is that of the execution
 * whose answer the journal holds. Returns how many writes were checked.
 */
export function verifyStateWrites(
  journal: StoredRuns['journal'],
  stateRows: ReadonlyArray<{ readonly key: string; readonly value: string }>,
): number {
  const journaled = new Map<string, unknown>();
  for (const row of journal) {
    const record = JSON.parse(row.record) as JournalRecord;
    if (record.type !== 'call-answered') continue;
    for (const write of record.state ?? []) {
      expect(write.key).toBe(stateKey(row.run_id, record.callId));
      expect(record.answer).toMatchObject({ type: 'ok', value: { nonce: write.value } });
      journaled.set(write.key, write.value);
    }
  }
  const stored = new Map(stateRows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  expect(stored).toEqual(journaled);
  return journaled.size;
}
