import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { ErrorNote } from '../parts/notice';
import { StableParkCard } from '../parts/park-card';
import { followStream } from '../sse';
import type { InboxItem, Me, ParkRow } from '../types';

interface Page {
  readonly items: readonly InboxItem[];
  readonly next?: string;
}

/**
 * Open parks, newest first, live: the inbox listens to /v1/inbox/events, and reads the first page
 * of /v1/inbox once listening (so nothing opened meanwhile is missed); older ones load a page at a
 * time. A park answered elsewhere says by whom; one answered here, too.
 */
export function Inbox({ api, me }: { api: Api; me: Me }) {
  const [items, setItems] = useState<readonly InboxItem[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [live, setLive] = useState<'connecting' | 'live' | 'reconnecting' | 'ended'>('connecting');
  const [news, setNews] = useState('');
  const generation = useRef(0);

  const loadFirst = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const page = await api.get<Page>('/v1/inbox?limit=50');
      if (mine !== generation.current) return;
      setItems((shown) => {
        // Keep answered cards still on screen, and parks the stream brought that are newer than the page.
        const newest = page.items[0]?.park.createdAt ?? Number.NEGATIVE_INFINITY;
        const kept = shown.filter((item) => item.park.status !== 'open' || item.park.createdAt > newest);
        const ids = new Set(kept.map((item) => item.park.id));
        return mergeNewestFirst([...kept, ...page.items.filter((item) => !ids.has(item.park.id))]);
      });
      setNext(page.next);
      setLoaded(true);
      setError(undefined);
    } catch (thrown) {
      setError(thrown);
    }
  }, [api]);

  useEffect(() => {
    void loadFirst();
    return followStream(api, '/v1/inbox/events', {
      onStatus: (status, thrown) => {
        setLive(status);
        if (thrown !== undefined && status === 'ended') setError(thrown);
      },
      onEvent: (event) => {
        if (event.event === 'ready') {
          void loadFirst();
        } else if (event.event === 'park-opened') {
          const item = JSON.parse(event.data) as InboxItem;
          setItems((shown) =>
            shown.some((each) => each.park.id === item.park.id) ? shown : mergeNewestFirst([item, ...shown]),
          );
          setNews(`New park: ${item.park.kind} ${item.park.call?.name ?? ''} in run ${item.run.id}`);
        } else if (event.event === 'park-answered') {
          const answer = JSON.parse(event.data) as {
            parkId: string;
            decision: ParkRow['decision'];
            by: string;
            at: number;
          };
          setItems((shown) =>
            shown.map((each) =>
              each.park.id === answer.parkId && each.park.status === 'open'
                ? {
                    ...each,
                    park: {
                      ...each.park,
                      status: 'answered',
                      answeredBy: answer.by,
                      answeredAt: answer.at,
                      ...(answer.decision ? { decision: answer.decision } : {}),
                    },
                  }
                : each,
            ),
          );
          setNews(`Park ${answer.parkId} answered by ${answer.by}`);
        } else if (event.event === 'run-ended') {
          const ended = JSON.parse(event.data) as { runId: string; status: string };
          setItems((shown) =>
            shown.map((each) =>
              each.run.id === ended.runId && each.park.status === 'open'
                ? { ...each, park: { ...each.park, status: 'closed' } }
                : each,
            ),
          );
        }
      },
    });
  }, [api, loadFirst]);

  const loadMore = async () => {
    if (next === undefined) return;
    try {
      const page = await api.get<Page>(`/v1/inbox?limit=50&after=${encodeURIComponent(next)}`);
      setItems((shown) => mergeNewestFirst([...shown, ...page.items]));
      setNext(page.next);
    } catch (thrown) {
      setError(thrown);
    }
  };

  const answered = useCallback(
    (park: ParkRow) => setItems((shown) => shown.map((each) => (each.park.id === park.id ? { ...each, park } : each))),
    [],
  );
  const dismiss = () => setItems((shown) => shown.filter((each) => each.park.status === 'open'));
  const open = items.filter((item) => item.park.status === 'open').length;

  return (
    <section aria-labelledby="inbox-heading">
      <div class="page-head">
        <h2 id="inbox-heading">Inbox</h2>
        <p class="live" aria-live="polite" data-live={live}>
          <span aria-hidden="true">{live === 'live' ? '● ' : '○ '}</span>
          {live === 'live'
            ? 'live'
            : live === 'connecting'
              ? 'connecting…'
              : live === 'reconnecting'
                ? 'reconnecting…'
                : 'not live'}
        </p>
      </div>
      <p class="muted">
        {loaded ? `${open} open park${open === 1 ? '' : 's'} shown${next ? ' (more below)' : ''}` : 'Loading…'}
        {items.length > open && (
          <>
            {' · '}
            <button type="button" class="link" onClick={dismiss}>
              Clear answered
            </button>
          </>
        )}
      </p>
      <p class="visually-hidden" aria-live="polite">
        {news}
      </p>
      <ErrorNote error={error} />
      {loaded && items.length === 0 && <p class="empty">Nothing waits for a person.</p>}
      <div class="cards">
        {items.map((item) => (
          <StableParkCard
            key={item.park.id}
            api={api}
            item={item}
            mayAnswer={me.may['park.answer']}
            onAnswered={answered}
          />
        ))}
      </div>
      {next !== undefined && (
        <button type="button" onClick={loadMore}>
          Older parks
        </button>
      )}
    </section>
  );
}

function mergeNewestFirst(items: readonly InboxItem[]): InboxItem[] {
  const seen = new Set<string>();
  const unique = items.filter((item) => !seen.has(item.park.id) && seen.add(item.park.id));
  return unique.sort((left, right) =>
    right.park.createdAt !== left.park.createdAt
      ? right.park.createdAt - left.park.createdAt
      : right.park.id < left.park.id
        ? -1
        : 1,
  );
}
