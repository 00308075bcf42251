import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { cost, pretty, when } from '../parts/format';
import { JsonView } from '../parts/json-view';
import { Labels } from '../parts/labels';
import { ErrorNote } from '../parts/notice';
import { ParkCard } from '../parts/park-card';
import { InvisibleFlag, Shown } from '../parts/shown';
import { Status } from '../parts/status';
import { href } from '../router';
import { followStream } from '../sse';
import type { JournalRecord, Me, ParkRow, RunDetails, StoredRecord } from '../types';

/** A run's page: its journal as a timeline, live while it goes on; cancel; release labels. */
export function Run({ api, me, id }: { api: Api; me: Me; id: string }) {
  const [run, setRun] = useState<RunDetails | undefined>(undefined);
  const [records, setRecords] = useState<readonly StoredRecord[]>([]);
  const [streaming, setStreaming] = useState<{ step: number; text: string } | undefined>(undefined);
  const [progress, setProgress] = useState<Record<string, string>>({});
  const [parks, setParks] = useState<Record<string, ParkRow>>({});
  const [error, setError] = useState<unknown>(undefined);
  // Parks shown open here keep their card once answered: it says what came of an answer sent from it.
  const shownOpen = useRef(new Set<string>());

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    setRun(undefined);
    setRecords([]);
    setParks({});
    api.get<RunDetails>(`/v1/runs/${encodeURIComponent(id)}`).then(
      (details) => {
        if (cancelled) return;
        setRun(details);
        setRecords(details.journal);
        const last = details.journal.at(-1)?.seq ?? 0;
        if (details.journal.some((each) => each.record.type === 'run-ended')) return;
        stop = followStream(api, `/v1/runs/${encodeURIComponent(id)}/events`, {
          lastEventId: String(last),
          reconnect: true,
          onStatus: (status, thrown) => status === 'ended' && thrown !== undefined && setError(thrown),
          onEvent: (event) => {
            const data = JSON.parse(event.data) as Record<string, unknown>;
            if (event.event === 'text-delta') {
              const step = data['step'] as number;
              const delta = data['delta'] as string;
              setStreaming((now) =>
                now && now.step === step ? { step, text: now.text + delta } : { step, text: delta },
              );
              return;
            }
            if (event.event === 'call-progress') {
              const callId = data['callId'] as string;
              const line = `${String(data['progress'])}${data['total'] === undefined ? '' : `/${String(data['total'])}`} ${String(data['message'] ?? '')}`;
              setProgress((now) => ({ ...now, [callId]: line }));
              return;
            }
            if (event.event === 'model-retry') return;
            const stored = data as unknown as StoredRecord;
            if (stored.record === undefined) return;
            setRecords((now) => (now.some((each) => each.seq === stored.seq) ? now : [...now, stored]));
            if (stored.record.type === 'model-step') setStreaming(undefined);
            if (
              stored.record.type === 'run-ended' ||
              stored.record.type === 'run-parked' ||
              stored.record.type === 'labels-released'
            ) {
              void api.get<RunDetails>(`/v1/runs/${encodeURIComponent(id)}`).then(setRun, () => {});
            }
          },
        });
      },
      (thrown) => !cancelled && setError(thrown),
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [api, id]);

  // Open parks of the run, to answer here as in the inbox.
  useEffect(() => {
    if (!me.may['park.read']) return;
    const parked = records.filter((each) => each.record.type === 'run-parked');
    if (parked.length === 0) return;
    void api.get<{ parks: ParkRow[] }>(`/v1/parks?runId=${encodeURIComponent(id)}&limit=1000`).then(
      (body) => setParks(Object.fromEntries(body.parks.map((park) => [park.id, park]))),
      () => {},
    );
  }, [api, id, me, records]);

  if (run === undefined) {
    return (
      <section>
        <h2>Run {id}</h2>
        {error ? <ErrorNote error={error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  const ended = records.some((each) => each.record.type === 'run-ended');
  // A park's card, to answer it here, under its entry.
  const withCard = (record: JournalRecord) =>
    record.type === 'run-parked' && me.may['park.answer'] && keepsCard(parks[record.park.id], shownOpen.current);
  const answerOf = (parkId: string) =>
    records.find((each) => each.record.type === 'park-answered' && each.record.parkId === parkId);
  return (
    <section aria-labelledby="run-heading">
      <h2 id="run-heading" tabIndex={-1} data-focus-home>
        Run <code>{run.id}</code>
      </h2>
      <dl class="facts run-facts">
        <dt>Status</dt>
        <dd>
          <Status status={run.status} />
          {!ended && (
            <span class="live">
              {' '}
              <span aria-hidden="true">●</span> live
            </span>
          )}
        </dd>
        <dt>Agent</dt>
        <dd>{run.agent}</dd>
        <dt>For</dt>
        <dd>
          <Shown text={run.principal} />
        </dd>
        <dt>Cost</dt>
        <dd>{cost(run.measures)}</dd>
        <dt>Labels</dt>
        <dd>
          <Labels labels={run.labels} />
        </dd>
        {run.output !== undefined && (
          <>
            <dt>Output</dt>
            <dd>
              <pre class="text">
                <Shown text={run.output} />
              </pre>
            </dd>
          </>
        )}
        {run.error !== undefined && (
          <>
            <dt>Error</dt>
            <dd class="error">
              <Shown text={run.error} />
            </dd>
          </>
        )}
      </dl>
      <ErrorNote error={error} />
      <div class="actions">
        {me.may['run.cancel'] && !ended && <CancelRun api={api} id={run.id} onDone={setRun} />}
        {me.may['labels.release'] && run.labels.length > 0 && (
          <ReleaseLabels api={api} id={run.id} labels={run.labels} onDone={setRun} />
        )}
      </div>
      <h3>Timeline</h3>
      <ol class="timeline" aria-label="timeline">
        {records.map((stored) => (
          <li key={stored.seq} class={`entry entry-${stored.record.type}`}>
            <InvisibleFlag value={stored.record} />
            <Entry
              record={stored.record}
              seq={stored.seq}
              withCard={withCard(stored.record)}
              answer={stored.record.type === 'run-parked' ? answerOf(stored.record.park.id)?.record : undefined}
              progress={stored.record.type === 'call-started' ? progress[stored.record.callId] : undefined}
            />
            {stored.record.type === 'run-parked' && withCard(stored.record) && (
              <ParkCard
                api={api}
                item={{ park: parks[stored.record.park.id] as ParkRow, run }}
                mayAnswer
                onAnswered={(park) => setParks((now) => ({ ...now, [park.id]: park }))}
              />
            )}
          </li>
        ))}
        {streaming && (
          <li class="entry entry-streaming" aria-live="off">
            <p class="entry-head">step {streaming.step}: the model is writing…</p>
            <pre class="text">
              <Shown text={streaming.text} />
            </pre>
          </li>
        )}
      </ol>
    </section>
  );
}

/** One journal record, as text. */
function Entry(props: {
  record: JournalRecord;
  seq: number;
  /** The park's card is shown under it (with the call it holds). */
  withCard?: boolean;
  answer?: JournalRecord | undefined;
  progress?: string | undefined;
}) {
  const { record } = props;
  const head = (words: string) => (
    <p class="entry-head">
      <span class="seq">#{props.seq}</span>{' '}
      <strong>
        <Shown text={words} />
      </strong>{' '}
      <time class="muted">{when(record.at)}</time>
    </p>
  );
  switch (record.type) {
    case 'run-started':
      return (
        <>
          {head(`started: agent ${record.agent}, for ${record.principal}`)}
          {record.session && (
            <p class="muted">
              in session <a href={href({ page: 'session', id: record.session })}>{record.session}</a>
            </p>
          )}
          {record.parent && (
            <p class="muted">
              a child run, called by run{' '}
              <a href={href({ page: 'run', id: record.parent.runId })}>{record.parent.runId}</a>
            </p>
          )}
          {record.labels && record.labels.length > 0 && <Labels labels={record.labels} />}
          <pre class="text">
            <Shown text={record.input} />
          </pre>
        </>
      );
    case 'model-step':
      return (
        <>
          {head(
            `model step ${record.step} (${record.model})${record.agent ? `, agent ${record.agent}` : ''}${record.callback ? `, made by its ${record.callback} callback` : ''}`,
          )}
          {record.unavailable?.map((each) => (
            <p key={each.toolset} class="muted">
              toolset <Shown text={each.toolset} /> left out: <Shown text={each.reason} />
            </p>
          ))}
          <p class="muted">{cost(record.measures)}</p>
          {record.labels && record.labels.length > 0 && <Labels labels={record.labels} />}
          {record.text && (
            <pre class="text">
              <Shown text={record.text} />
            </pre>
          )}
          {record.toolCalls.length > 0 && (
            <p>
              asks for: <Shown text={record.toolCalls.map((call) => call.name).join(', ')} />
            </p>
          )}
        </>
      );
    case 'call-started':
      return (
        <>
          {head(`call ${record.name}${record.attempt > 1 ? ` (try ${record.attempt})` : ''}`)}
          <p class="muted">
            {record.rule ? <Shown text={`allowed by rule ${record.rule}`} /> : ''}
            {record.repeatable ? ' · repeatable' : ' · not repeatable'}
          </p>
          <JsonView value={record.arguments} label={`arguments of ${record.name}`} />
          {props.progress && (
            <p class="muted">
              progress: <Shown text={props.progress} />
            </p>
          )}
        </>
      );
    case 'call-answered':
      return (
        <>
          {head(
            `answer (${record.answer.type === 'error' ? 'error' : record.answer.type})${record.attempts > 1 ? ` after ${record.attempts} tries` : ''}`,
          )}
          {record.rule && (
            <p class="muted">
              refused by rule <Shown text={record.rule} />
            </p>
          )}
          {record.answer.labels && record.answer.labels.length > 0 && <Labels labels={record.answer.labels} />}
          {record.answer.measures && Object.keys(record.answer.measures).length > 0 && (
            <p class="muted">{cost(record.answer.measures)}</p>
          )}
          <JsonView
            value={
              record.answer.type === 'error'
                ? record.answer.reason
                : record.answer.type === 'ok'
                  ? record.answer.value
                  : undefined
            }
            label="answer"
          />
        </>
      );
    case 'run-parked':
      return (
        <>
          {head(`parked (${record.park.kind})${record.park.call ? `: ${record.park.call.name}` : ''}`)}
          <p>
            <Shown text={record.park.reason} />
          </p>
          {record.park.rule && (
            <p class="muted">
              held by rule <Shown text={record.park.rule} />
            </p>
          )}
          <Labels labels={record.park.labels} />
          {record.park.call && !props.withCard && (
            <JsonView value={record.park.call.arguments} label={`arguments of ${record.park.call.name}`} />
          )}
          {props.answer?.type === 'park-answered' ? (
            <p class="decision">
              <span aria-hidden="true">✓ </span>
              answered by{' '}
              <strong>
                <Shown text={props.answer.by} />
              </strong>
              : {props.answer.decision.type}
            </p>
          ) : (
            <p class="muted">waiting for a person</p>
          )}
        </>
      );
    case 'park-answered':
      return (
        <>
          {head(`decision by ${record.by}: ${record.decision.type}`)}
          <pre class="json">
            <Shown text={pretty(record.decision)} />
          </pre>
        </>
      );
    case 'call-changed':
      return (
        <>
          {head(`arguments changed by ${record.by}`)}
          <JsonView value={record.arguments} label="changed arguments" />
        </>
      );
    case 'agent-transferred':
      return (
        <>
          {head(`transferred from ${record.from} to ${record.to}`)}
          {record.reason && (
            <p>
              <Shown text={record.reason} />
            </p>
          )}
        </>
      );
    case 'child-run-started':
      return (
        <>
          {head(`child run of agent ${record.agent}`)}
          <p>
            <a href={href({ page: 'run', id: record.childRunId })}>{record.childRunId}</a>
          </p>
        </>
      );
    case 'labels-released':
      return (
        <>
          {head(`labels released by ${record.by}`)}
          <Labels labels={record.labels} />
          <p>
            why: <Shown text={record.reason} />
          </p>
        </>
      );
    case 'run-ended':
      return (
        <>
          {head(`ended: ${record.status}`)}
          <Labels labels={record.labels} />
          <p class="muted">{cost(record.measures)}</p>
          {record.output !== undefined && (
            <pre class="text">
              <Shown text={record.output} />
            </pre>
          )}
          {record.error !== undefined && (
            <p class="error">
              <Shown text={record.error} />
            </p>
          )}
        </>
      );
    default:
      return head((record as { type: string }).type);
  }
}

function CancelRun({ api, id, onDone }: { api: Api; id: string; onDone: (run: RunDetails) => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const send = async (event: Event) => {
    event.preventDefault();
    try {
      await api.post(`/v1/runs/${encodeURIComponent(id)}/cancel`, reason.trim() ? { reason: reason.trim() } : {});
      onDone(await api.get<RunDetails>(`/v1/runs/${encodeURIComponent(id)}`));
      setOpen(false);
    } catch (thrown) {
      setError(thrown);
    }
  };
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Cancel the run…
      </button>
    );
  }
  return (
    <form class="card form" onSubmit={send} aria-label="cancel the run">
      <label>
        Reason <input value={reason} onInput={(event) => setReason((event.target as HTMLInputElement).value)} />
      </label>
      <ErrorNote error={error} />
      <button type="submit">Cancel the run</button>{' '}
      <button type="button" onClick={() => setOpen(false)}>
        Keep it
      </button>
    </form>
  );
}

function ReleaseLabels(props: { api: Api; id: string; labels: readonly string[]; onDone: (run: RunDetails) => void }) {
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const send = async (event: Event) => {
    event.preventDefault();
    if (chosen.length === 0 || reason.trim() === '') {
      setError(new Error('choose the labels to release and say why'));
      return;
    }
    try {
      await props.api.post(`/v1/runs/${encodeURIComponent(props.id)}/labels/release`, {
        labels: chosen,
        reason: reason.trim(),
      });
      props.onDone(await props.api.get<RunDetails>(`/v1/runs/${encodeURIComponent(props.id)}`));
      setOpen(false);
    } catch (thrown) {
      setError(thrown);
    }
  };
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Release labels…
      </button>
    );
  }
  return (
    <form class="card form" onSubmit={send} aria-label="release labels">
      <fieldset>
        <legend>Labels to release (journaled with your name and reason)</legend>
        {props.labels.map((label) => (
          <label key={label}>
            <input
              type="checkbox"
              checked={chosen.includes(label)}
              onChange={(event) =>
                setChosen((now) =>
                  (event.target as HTMLInputElement).checked ? [...now, label] : now.filter((each) => each !== label),
                )
              }
            />{' '}
            <Shown text={label} />
          </label>
        ))}
      </fieldset>
      <label>
        Why they may be released{' '}
        <input value={reason} onInput={(event) => setReason((event.target as HTMLInputElement).value)} />
      </label>
      <ErrorNote error={error} />
      <button type="submit">Release</button>{' '}
      <button type="button" onClick={() => setOpen(false)}>
        Keep them
      </button>
    </form>
  );
}

/**
 * Whether a park of the run has its card: while it is open, and after, once it was shown open
 * here (so that the card can say what came of an answer sent from it). Notes the open ones.
 */
function keepsCard(park: ParkRow | undefined, shownOpen: Set<string>): boolean {
  if (park === undefined) return false;
  if (park.status === 'open') shownOpen.add(park.id);
  return shownOpen.has(park.id);
}
