import type pg from 'pg';
import { ParkNotFoundError, RunNotFoundError, StaleParkAnswerError } from '../../errors.js';
import { type ParkColumns, parkNotOpenError, parkRowFrom } from '../columns.js';
import type { PendingAnswer } from '../run-store.js';
import type { SignalTarget } from './batch-write.js';

/*
 * Requests for the node that holds a run: a person's answer and a cancel, each recorded durably
 * in one statement that also notifies `requested` (delivered at commit).
 */

const REQUEST_ANSWER = `
  WITH answered AS (
    UPDATE parks SET status = 'answered', decision = $2, answered_by = $3, answered_at = $4, recorded = false
    WHERE id = $1 AND status = 'open' AND (park::json ->> 'callHash') = $5
    RETURNING run_id
  ),
  notified AS (
    SELECT pg_notify($6, json_build_object('type', 'requested', 'runId', run_id, 'source', $7::text)::text)
    FROM answered
  )
  SELECT run_id, (SELECT count(*) FROM notified) AS notified FROM answered
`;

const REQUEST_CANCEL = `
  WITH target AS (SELECT id FROM runs WHERE id = $1),
  asked AS (
    INSERT INTO run_cancels (run_id, reason, requested_at) SELECT id, $2, $3 FROM target
    ON CONFLICT (run_id) DO NOTHING
  ),
  notified AS (
    SELECT pg_notify($4, json_build_object('type', 'requested', 'runId', id, 'source', $5::text)::text) FROM target
  )
  SELECT (SELECT count(*) FROM target) AS found, (SELECT count(*) FROM notified) AS notified
`;

/**
 * Answers an open park for its run's holder to journal (see `RunStore.requestAnswer`). Returns
 * the park's run. Throws `ParkNotFoundError`, `ParkAlreadyAnsweredError` or `StaleParkAnswerError`.
 */
export async function requestAnswer(
  client: pg.ClientBase,
  answer: PendingAnswer & { readonly callHash: string },
  signals: SignalTarget,
): Promise<string> {
  const { rows } = await client.query<{ run_id: string }>({
    name: 'wardrik_request_answer_v1',
    text: REQUEST_ANSWER,
    values: [
      answer.parkId,
      JSON.stringify(answer.decision),
      answer.by,
      answer.at,
      answer.callHash,
      signals.channel,
      signals.source,
    ],
  });
  if (rows[0] !== undefined) return rows[0].run_id;
  // Refused: say why, from the park as it is now.
  const { rows: parks } = await client.query<ParkColumns>('SELECT * FROM parks WHERE id = $1', [answer.parkId]);
  const park = parks[0];
  if (park === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
  if (park.status !== 'open') throw parkNotOpenError(answer.parkId, park);
  if (parkRowFrom(park).callHash !== answer.callHash) {
    throw new StaleParkAnswerError(
      `park ${answer.parkId} now holds another call than the one answered; look at it again`,
    );
  }
  throw new StaleParkAnswerError(`park ${answer.parkId} changed while it was being answered; look at it again`);
}

/** Asks the holder of run `runId` to cancel it (the first request stands). Throws `RunNotFoundError`. */
export async function requestCancel(
  client: pg.ClientBase,
  runId: string,
  reason: string,
  at: number,
  signals: SignalTarget,
): Promise<void> {
  const { rows } = await client.query<{ found: number }>({
    name: 'wardrik_request_cancel_v1',
    text: REQUEST_CANCEL,
    values: [runId, reason, at, signals.channel, signals.source],
  });
  if ((rows[0]?.found ?? 0) === 0) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
}
