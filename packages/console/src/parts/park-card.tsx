import { Component } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { describeError } from '../api';
import { href } from '../router';
import type { Decision, InboxItem, ParkRow } from '../types';
import { AnswerForm } from './answer-form';
import { focusIsLostOrIn, focusNextPark } from './focus';
import { cost, pretty, when } from './format';
import { JsonView } from './json-view';
import { Labels } from './labels';
import { decisionWords, refusalWords, type SentAnswer, sendAnswer } from './sent-answer';
import { InvisibleFlag, Shown } from './shown';

const KIND_WORDS: Readonly<Record<ParkRow['kind'], string>> = {
  approval: 'approval: a gate held the call',
  in_doubt: 'in doubt: the call may have run',
  tool: 'the tool asked for a person',
  budget: 'budget reached',
  external: 'waiting for outside work',
  input: 'a call asks a person while it waits',
  authorize: 'a person must sign in to a server',
};

interface ParkCardProps {
  readonly api: Api;
  readonly item: InboxItem;
  readonly mayAnswer: boolean;
  /** The park once answered from here, or found answered (or closed) by someone else when this answer was refused. */
  readonly onAnswered: (park: ParkRow) => void;
}

/**
 * A park card that renders again only when its item changes: a park arriving in a long inbox
 * renders one card, not every card.
 */
export class StableParkCard extends Component<ParkCardProps> {
  override shouldComponentUpdate(next: ParkCardProps): boolean {
    return next.item !== this.props.item || next.mayAnswer !== this.props.mayAnswer || next.api !== this.props.api;
  }

  override render() {
    return <ParkCard {...this.props} />;
  }
}

/**
 * One park: its agent and run, kind and reason, the call it holds exactly as the API gives it (the
 * rule that held it, the arguments; invisible characters written out and flagged), the run's
 * labels and its cost so far; answered in place when the principal may answer parks.
 *
 * An answer sent from here is followed to its end whatever comes first, the live event or the
 * response: who lost a race is told plainly that their answer was not taken and what was; once
 * an answer is taken the focus moves on to the next park (see focus.ts).
 */
export function ParkCard(props: ParkCardProps) {
  const { park, run, schema } = props.item;
  const headingId = `park-${park.id}`;
  const [sent, setSent] = useState<SentAnswer | undefined>(undefined);
  const article = useRef<HTMLElement>(null);
  const outcome = useRef<HTMLDivElement>(null);
  // An answer went from this card and the focus has not been placed since.
  const placeFocus = useRef(false);
  const open = park.status === 'open';

  const send = async (decision: Decision): Promise<void> => {
    placeFocus.current = true;
    setSent({ state: 'sending', decision });
    const result = await sendAnswer(props.api, park, decision);
    setSent(result);
    if (result.state === 'taken') props.onAnswered(result.park);
    else if (result.state === 'refused' && result.park !== undefined && result.park.status !== 'open') {
      props.onAnswered(result.park);
    } else if (result.state === 'failed') throw result.error;
  };

  useLayoutEffect(() => {
    if (!placeFocus.current || sent === undefined) return;
    // The form is still there (its Send button waits, or it says what went wrong).
    if (open && (sent.state === 'sending' || sent.state === 'failed')) {
      if (sent.state === 'failed') placeFocus.current = false;
      return;
    }
    if (sent.state !== 'sending') placeFocus.current = false;
    // The person went on elsewhere meanwhile: leave the focus where they put it.
    if (!focusIsLostOrIn(article.current)) return;
    if (sent.state === 'taken') focusNextPark(article.current);
    else outcome.current?.focus();
  }, [sent, open]);

  return (
    <article
      class={`card park park-${park.kind}`}
      aria-labelledby={headingId}
      data-park={park.id}
      data-open={open ? 'true' : undefined}
      tabIndex={-1}
      ref={article}
    >
      <header>
        <h3 id={headingId}>
          <span class="kind">{KIND_WORDS[park.kind]}</span>
          {park.call ? (
            <>
              {' · '}
              <code class="tool">
                <Shown text={park.call.name} />
              </code>
            </>
          ) : null}
        </h3>
        <p class="meta">
          agent <strong>{run.agent}</strong> · run <a href={href({ page: 'run', id: run.id })}>{run.id}</a> · for{' '}
          <Shown text={run.principal} /> · <time>{when(park.createdAt)}</time>
        </p>
      </header>
      <InvisibleFlag value={park} />
      <dl class="facts">
        <dt>Why</dt>
        <dd class="reason">
          <Shown text={park.reason} />
        </dd>
        {park.rule !== undefined && (
          <>
            <dt>Rule</dt>
            <dd>
              <code>
                <Shown text={park.rule} />
              </code>
            </dd>
          </>
        )}
        <dt>Labels</dt>
        <dd>
          <Labels labels={park.labels} />
        </dd>
        <dt>Cost so far</dt>
        <dd>{cost(run.measures)}</dd>
        {park.handle !== undefined && (
          <>
            <dt>Handle</dt>
            <dd>
              <code>
                <Shown text={park.handle} />
              </code>
            </dd>
          </>
        )}
      </dl>
      {park.call && <JsonView value={park.call.arguments} label={`arguments of ${park.call.name}`} />}
      {park.details !== undefined && (
        <details>
          <summary>Details</summary>
          <pre class="json">
            <Shown text={pretty(park.details)} />
          </pre>
        </details>
      )}
      {sent?.state === 'refused' || sent?.state === 'taken' || !open ? (
        <Outcome park={park} sent={sent} focusTarget={outcome} />
      ) : props.mayAnswer ? (
        <AnswerForm park={park} {...(schema === undefined ? {} : { schema })} send={send} />
      ) : (
        <p class="muted">You may read this park; answering it takes an operator or admin.</p>
      )}
    </article>
  );
}

/**
 * What came of the park, for the person looking at it: their answer refused (a plain notice: not
 * taken, who answered first and with what; no tick), still on its way, not confirmed, or the
 * park's answer (theirs, or someone else's).
 */
function Outcome({
  park,
  sent,
  focusTarget,
}: {
  park: ParkRow;
  sent: SentAnswer | undefined;
  focusTarget: { current: HTMLDivElement | null };
}) {
  if (sent?.state === 'refused') {
    return (
      <div class="conflict" role="alert" tabIndex={-1} ref={focusTarget}>
        <span aria-hidden="true">⚠ </span>
        <strong>Your answer was not taken</strong> (conflict, 409). You chose{' '}
        <Shown text={decisionWords(sent.decision)} />;{' '}
        <Shown text={refusalWords(sent.park ?? answered(park), sent.error)} /> Nothing you sent reached the run.
      </div>
    );
  }
  const shown = sent?.state === 'taken' ? sent.park : park;
  const said =
    shown.status === 'answered' ? (
      <>
        Answered by <Shown text={shown.answeredBy ?? 'someone'} />: <Shown text={shown.decision?.type ?? ''} />
      </>
    ) : (
      'Closed (the run was cancelled)'
    );
  if (sent?.state === 'sending') {
    return (
      <div class="pending" role="status" tabIndex={-1} ref={focusTarget}>
        {said}. Waiting to hear whether that was your answer (<Shown text={decisionWords(sent.decision)} />
        )…
      </div>
    );
  }
  if (sent?.state === 'failed') {
    return (
      <div class="error" role="alert" tabIndex={-1} ref={focusTarget}>
        <span aria-hidden="true">✗ </span>
        Your answer (<Shown text={decisionWords(sent.decision)} />) may not have been taken: {describeError(sent.error)}
        . The park now says: {said}.
      </div>
    );
  }
  return (
    <div class="answered" role="status" tabIndex={-1} ref={focusTarget}>
      <span aria-hidden="true">✓ </span>
      {said}
      {sent?.state === 'taken' ? ' (your answer)' : ''}
    </div>
  );
}

/** The park, if it is answered or closed: what a refusal is explained by when it could not be read again. */
function answered(park: ParkRow): ParkRow | undefined {
  return park.status === 'open' ? undefined : park;
}
