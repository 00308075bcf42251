/*
 * What nodes say to each other about worker calls (workers/node-messages.ts): every field of a
 * message or note from another node is checked, so nonsense is refused with a reason (and then
 * logged and ignored), and a progress note stays within what a store carries.
 */
import { describe, expect, it } from 'vitest';
import { MAX_NOTE_BYTES } from '../src/store/worker-store.js';
import { progressNote, readMail, readProgressNote } from '../src/workers/node-messages.js';

const meta = { agent: 'support', run: 'run_1', principal: 'alice', idempotencyKey: 'run_1:c1', labels: ['outside'] };
const call = {
  type: 'call',
  call: 'c1',
  worker: 'wkr_1',
  name: 'lookup',
  arguments: { key: 'k' },
  meta,
  idleTimeoutMs: 1_000,
  maxTimeMs: 60_000,
};

describe('readMail', () => {
  it('reads a call, an outcome and a cancel', () => {
    expect(readMail(JSON.stringify(call))).toEqual({ ok: true, mail: call });
    const { arguments: _none, ...withoutArguments } = call;
    expect(readMail(JSON.stringify(withoutArguments))).toEqual({ ok: true, mail: { ...call, arguments: {} } });
    for (const outcome of [
      { type: 'result', result: { content: [] } },
      { type: 'lost', reason: 'the worker disconnected' },
      { type: 'refused', reason: 'gone' },
      { type: 'cancelled' },
    ]) {
      expect(readMail(JSON.stringify({ type: 'outcome', call: 'c1', outcome, revision: 3 }))).toEqual({
        ok: true,
        mail: { type: 'outcome', call: 'c1', outcome, revision: 3 },
      });
    }
    expect(readMail('{"type":"cancel","call":"c1"}')).toEqual({
      ok: true,
      mail: { type: 'cancel', call: 'c1', reason: 'cancelled' },
    });
  });

  it('refuses what is not a message, naming why', () => {
    const refused = (body: string) => {
      const read = readMail(body);
      return read.ok ? 'read' : read.reason;
    };
    expect(refused('not json')).toBe('not a JSON object');
    expect(refused('[1]')).toBe('not a JSON object');
    expect(refused('{"type":"cancel"}')).toBe('cancel: call must be a string');
    expect(refused('{"type":"nope","call":"c1"}')).toBe('unknown message type "nope"');
    expect(refused('{"type":"outcome","call":"c1","outcome":{"type":"lost"}}')).toBe('outcome: not a call outcome');
    expect(refused(JSON.stringify({ ...call, worker: 7 }))).toBe('call: worker and name must be strings');
    for (const idleTimeoutMs of [0, -1, 1e12, 'soon', null]) {
      expect(refused(JSON.stringify({ ...call, idleTimeoutMs }))).toMatch(/positive numbers of ms/);
    }
    for (const bad of [{ ...meta, labels: [1] }, { ...meta, run: undefined }, 'meta']) {
      expect(refused(JSON.stringify({ ...call, meta: bad }))).toMatch(/meta must hold/);
    }
  });
});

describe('progress notes', () => {
  it('carry a call and its progress; a long message is cut so the note stays small', () => {
    expect(readProgressNote(progressNote('c1', { progress: 3, total: 10, message: 'step 3' }))).toEqual({
      type: 'progress',
      call: 'c1',
      progress: { progress: 3, total: 10, message: 'step 3' },
    });
    const long = progressNote('c1', { progress: 1, message: '"é'.repeat(5_000) });
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    expect(readProgressNote(long)?.progress.progress).toBe(1);
  });

  it('ignore what is not one', () => {
    expect(readProgressNote('nope')).toBeUndefined();
    expect(readProgressNote('{"type":"progress","call":"c1","progress":{"progress":"x"}}')).toBeUndefined();
    expect(readProgressNote('{"type":"other","call":"c1","progress":{"progress":1}}')).toBeUndefined();
  });
});
