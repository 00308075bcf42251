import { Component } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Api } from '../api';
import { href } from '../router';
import type { InboxItem, ParkRow } from '../types';
import { AnswerForm } from './answer-form';
import { cost, pretty, when } from './format';
import { JsonView } from './json-view';
import { Labels } from './labels';

const KIND_WORDS: Readonly<Record<ParkRow['kind'], string>> = {
  approval: 'approval: a gate held the call',
  in_doubt: 'in doubt: the call may have run',
  tool: 'the tool asked for a person',
  budget: 'budget reached',
  external: 'waiting for outside work',
};

interface ParkCardProps {
  readonly api: Api;
  readonly item: InboxItem;
  readonly mayAnswer: boolean;
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
 * rule that held it, the arguments), the run's labels and its cost so far; answered in place when
 * the principal may answer parks.
 */
export function ParkCard(props: ParkCardProps) {
  const { park, run, schema } = props.item;
  const headingId = `park-${park.id}`;
  // Answered from this card: the answer's line takes the focus the Send button had (keyboard users stay in place).
  const answeredHere = useRef(false);
  const outcome = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (park.status !== 'open' && answeredHere.current) {
      answeredHere.current = false;
      outcome.current?.focus();
    }
  }, [park.status]);
  const onAnswered = (answered: ParkRow) => {
    answeredHere.current = true;
    props.onAnswered(answered);
  };
  return (
    <article class={`card park park-${park.kind}`} aria-labelledby={headingId} data-park={park.id}>
      <header>
        <h3 id={headingId}>
          <span class="kind">{KIND_WORDS[park.kind]}</span>
          {park.call ? (
            <>
              {' · '}
              <code class="tool">{park.call.name}</code>
            </>
          ) : null}
        </h3>
        <p class="meta">
          agent <strong>{run.agent}</strong> · run <a href={href({ page: 'run', id: run.id })}>{run.id}</a> · for{' '}
          {run.principal} · <time>{when(park.createdAt)}</time>
        </p>
      </header>
      <dl class="facts">
        <dt>Why</dt>
        <dd class="reason">{park.reason}</dd>
        {park.rule !== undefined && (
          <>
            <dt>Rule</dt>
            <dd>
              <code>{park.rule}</code>
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
              <code>{park.handle}</code>
            </dd>
          </>
        )}
      </dl>
      {park.call && <JsonView value={park.call.arguments} label={`arguments of ${park.call.name}`} />}
      {park.details !== undefined && (
        <details>
          <summary>Details</summary>
          <pre class="json">{pretty(park.details)}</pre>
        </details>
      )}
      {park.status !== 'open' ? (
        <p class="answered" role="status" tabIndex={-1} ref={outcome}>
          <span aria-hidden="true">✓ </span>
          {park.status === 'answered'
            ? `Answered by ${park.answeredBy ?? 'someone'}: ${park.decision?.type ?? ''}`
            : 'Closed (the run was cancelled)'}
        </p>
      ) : props.mayAnswer ? (
        <AnswerForm api={props.api} park={park} {...(schema === undefined ? {} : { schema })} onAnswered={onAnswered} />
      ) : (
        <p class="muted">You may read this park; answering it takes an operator or admin.</p>
      )}
    </article>
  );
}
