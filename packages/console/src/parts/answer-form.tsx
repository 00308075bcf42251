import { escapeInvisible } from '@wardrik/core/invisible';
import { useState } from 'preact/hooks';
import type { Decision, ParkKind, ParkRow } from '../types';
import { checkArguments } from '../validate';
import { pretty } from './format';
import { ErrorNote } from './notice';

type Choice = 'approve' | 'deny' | 'edit' | 'answer' | 'retry' | 'fail' | 'raise-budget' | 'stop';

/** The decisions each kind of park takes, in the order they are offered, with their words. */
const CHOICES: Readonly<Record<ParkKind, readonly { choice: Choice; words: string }[]>> = {
  approval: [
    { choice: 'approve', words: 'Approve' },
    { choice: 'deny', words: 'Deny' },
    { choice: 'edit', words: 'Edit arguments' },
    { choice: 'answer', words: 'Answer for it' },
    { choice: 'fail', words: 'Fail it' },
  ],
  in_doubt: [
    { choice: 'answer', words: 'It ran: here is its answer' },
    { choice: 'retry', words: 'It did not run: run it now' },
    { choice: 'fail', words: 'Fail it' },
  ],
  tool: [
    { choice: 'retry', words: 'Run it now' },
    { choice: 'answer', words: 'Answer for it' },
    { choice: 'fail', words: 'Fail it' },
  ],
  budget: [
    { choice: 'raise-budget', words: 'Raise the budget' },
    { choice: 'stop', words: 'Stop the run' },
  ],
  external: [
    { choice: 'answer', words: 'Give its result' },
    { choice: 'fail', words: 'Fail it' },
  ],
  input: [
    { choice: 'answer', words: 'Send the answer' },
    { choice: 'deny', words: 'Decline' },
    { choice: 'stop', words: 'Dismiss the question' },
  ],
  authorize: [
    { choice: 'retry', words: 'Signed in: go on' },
    { choice: 'stop', words: 'Stop the run' },
  ],
};

/**
 * The decisions a park's kind takes, to answer it in place. Edited arguments are checked against
 * the tool's schema before anything is sent; the arguments to edit start as the call's, with any
 * invisible character written as a JSON escape (the same value, nothing hidden). `send` does the
 * sending (see park-card.tsx, which follows the answer to its end); an error it throws is shown.
 */
export function AnswerForm(props: {
  park: ParkRow;
  schema?: Record<string, unknown>;
  send: (decision: Decision) => Promise<void>;
}) {
  const { park, schema } = props;
  const [choice, setChoice] = useState<Choice | undefined>(undefined);
  const [text, setText] = useState('');
  const [remember, setRemember] = useState<'' | 'run' | 'agent'>('');
  const [argumentsText, setArgumentsText] = useState(() => escapeInvisible(pretty(park.call?.arguments ?? {})));
  // A question's answer is an object of the fields it asks for (none for a URL question).
  const [valueText, setValueText] = useState(park.kind === 'input' ? '{}' : '');
  const [budget, setBudget] = useState({ usd: '', tokens: '', steps: '' });
  const [problems, setProblems] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const [sending, setSending] = useState(false);
  const [holderStopped, setHolderStopped] = useState(false);
  const id = park.id;
  const holder = park.kind === 'in_doubt' ? park.holder : undefined;

  const decision = (): Decision | string[] => {
    const note = text.trim() || undefined;
    switch (choice) {
      case 'approve':
        return { type: 'approve', ...(note ? { note } : {}), ...(remember ? { remember } : {}) };
      case 'deny':
        return { type: 'deny', ...(note ? { reason: note } : {}) };
      case 'retry':
        return { type: 'retry', ...(note ? { note } : {}), ...(holderStopped ? { previousHolderStopped: true } : {}) };
      case 'fail':
        return { type: 'fail', ...(note ? { reason: note } : {}) };
      case 'stop':
        return { type: 'stop', ...(note ? { reason: note } : {}) };
      case 'edit': {
        const checked = checkArguments(argumentsText, schema);
        if (checked.errors.length > 0 || checked.value === undefined) return checked.errors;
        return { type: 'edit', arguments: checked.value, ...(note ? { note } : {}) };
      }
      case 'answer': {
        if (valueText.trim() === '') return ['give the answer: JSON, or text in quotes'];
        try {
          return { type: 'answer', value: JSON.parse(valueText) };
        } catch {
          return { type: 'answer', value: valueText };
        }
      }
      case 'raise-budget': {
        const limits: { usd?: number; tokens?: number; steps?: number } = {};
        const wrong: string[] = [];
        for (const unit of ['usd', 'tokens', 'steps'] as const) {
          const raw = budget[unit].trim();
          if (raw === '') continue;
          const amount = Number(raw);
          if (!Number.isFinite(amount) || amount <= 0 || (unit === 'steps' && !Number.isInteger(amount))) {
            wrong.push(`${unit}: expected a positive ${unit === 'steps' ? 'whole ' : ''}number, got ${raw}`);
          } else limits[unit] = amount;
        }
        if (wrong.length > 0) return wrong;
        if (Object.keys(limits).length === 0) return ['give at least one new limit'];
        return { type: 'raise-budget', budget: limits };
      }
      default:
        return ['choose a decision'];
    }
  };

  const send = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const made = decision();
    if (Array.isArray(made)) {
      setProblems(made);
      return;
    }
    setProblems([]);
    setSending(true);
    try {
      await props.send(made);
    } catch (thrown) {
      setError(thrown);
    } finally {
      setSending(false);
    }
  };

  const noteWords =
    choice === 'deny' || choice === 'fail' || choice === 'stop'
      ? 'Reason (the model is told)'
      : 'Note (kept with the answer)';
  return (
    <form class="answer" onSubmit={send} aria-label={`answer park ${id}`}>
      <fieldset class="choices">
        <legend class="visually-hidden">Decision</legend>
        {CHOICES[park.kind].map(({ choice: each, words }) => (
          <button
            type="button"
            key={each}
            class={choice === each ? 'choice chosen' : 'choice'}
            aria-pressed={choice === each}
            onClick={() => {
              setChoice(each);
              setProblems([]);
            }}
          >
            {words}
          </button>
        ))}
      </fieldset>
      {choice === 'edit' && (
        <div class="field">
          <label for={`${id}-arguments`}>
            Arguments (JSON{schema ? ', checked against the tool’s schema' : '; no schema known here'})
          </label>
          <textarea
            id={`${id}-arguments`}
            rows={Math.min(14, argumentsText.split('\n').length + 1)}
            spellcheck={false}
            value={argumentsText}
            onInput={(event) => setArgumentsText((event.target as HTMLTextAreaElement).value)}
          />
        </div>
      )}
      {choice === 'answer' && (
        <div class="field">
          <label for={`${id}-value`}>
            {park.kind === 'input'
              ? 'What the person answers (a JSON object of the fields asked for; checked against the question’s schema)'
              : 'The call’s answer (JSON, or plain text)'}
          </label>
          <textarea
            id={`${id}-value`}
            rows={4}
            spellcheck={false}
            value={valueText}
            onInput={(event) => setValueText((event.target as HTMLTextAreaElement).value)}
          />
        </div>
      )}
      {choice === 'raise-budget' && (
        <fieldset class="field budget">
          <legend>New limits (leave empty to keep)</legend>
          {(['usd', 'tokens', 'steps'] as const).map((unit) => (
            <label key={unit}>
              {unit}{' '}
              <input
                inputMode="decimal"
                value={budget[unit]}
                onInput={(event) => setBudget({ ...budget, [unit]: (event.target as HTMLInputElement).value })}
              />
            </label>
          ))}
        </fieldset>
      )}
      {choice === 'retry' && holder && (
        <div class="field holder" role="note">
          <p>
            Node <strong>{holder.node}</strong> (lease epoch {holder.epoch}) started this call
            {holder.startedAt === undefined ? '' : ` at ${new Date(holder.startedAt).toLocaleString()}`} and then lost
            the run. It may have been paused, not stopped, and still finish the call: running it now could run it twice.
          </p>
          <label>
            <input
              type="checkbox"
              checked={holderStopped}
              onChange={(event) => setHolderStopped((event.target as HTMLInputElement).checked)}
            />{' '}
            I checked: the call had no effect and node {holder.node} has stopped
          </label>
        </div>
      )}
      {choice === 'approve' && (
        <div class="field">
          <label for={`${id}-remember`}>Remember</label>
          <select
            id={`${id}-remember`}
            value={remember}
            onChange={(event) => setRemember((event.target as HTMLSelectElement).value as '' | 'run' | 'agent')}
          >
            <option value="">just this call</option>
            <option value="run">this tool for the rest of the run</option>
            <option value="agent">this tool for the agent from now on</option>
          </select>
        </div>
      )}
      {choice !== undefined && choice !== 'answer' && choice !== 'raise-budget' && (
        <div class="field">
          <label for={`${id}-note`}>{noteWords}</label>
          <input
            id={`${id}-note`}
            value={text}
            onInput={(event) => setText((event.target as HTMLInputElement).value)}
          />
        </div>
      )}
      {problems.length > 0 && (
        <ul class="problems" role="alert" aria-label="not sent">
          {problems.map((problem) => (
            <li key={problem}>
              <span aria-hidden="true">✗ </span>
              {problem}
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={error} />
      {choice !== undefined && (
        <button type="submit" class="send" disabled={sending}>
          {sending ? 'Sending…' : `Send: ${CHOICES[park.kind].find((each) => each.choice === choice)?.words ?? choice}`}
        </button>
      )}
    </form>
  );
}
