import { revealInvisible } from '@wardrik/core/invisible';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../api';
import { ErrorNote } from '../parts/notice';
import { StableParkCard } from '../parts/park-card';
import { followStream } from '../sse';
import type {
  InboxItem,
  InboxParkAnswered,
  InboxParkClosed,
  InboxRunEnded,
  Me,
  InboxPage as Page,
  ParkRow,
} from '../types';

/**
 * Open parks, newest first, live: the inbox listens to /v1/inbox/events, and reads the first page
 * of /v1/inbox once listening (so nothing opened meanwhile is missed); older ones load a page at a
 * time. A park answered elsewhere says by whom; one answered here, too (and who lost a race to
 * answer it is told so: see park-card.tsx). The heading is where the focus goes once no park is
 * left to answer.
 */
export function Inbox({ api, me }: { api: Api; me: Me }) {
  const [items, setItems] = useState<readonly InboxItem[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [live, setLive] = useState<'connecting' | 'live' | 'reconnecting' | 'ended'>('connecting');
  const [news, setNews] = useState('');
  const generation = useRef(0);
  // What is shown, kept in step with `items` so that an event's change and the page it trims are one.
  const current = useRef<readonly InboxItem[]>([]);
  // How many open parks are shown at most: a page, and a page more per "Older parks". A burst of
  // parks arriving live pushes the oldest out (they come back with "Older parks"), so that the
  // page stays as light with 10,000 open parks as with 50.
  const shownAtMost = useRef(PAGE);
  /** Changes what is shown, trimmed to the window; says whether it left parks out (then `next` says where they are). */
  const update = useCallback((change: (shown: readonly InboxItem[]) => readonly InboxItem[]): boolean => {
    const { kept, next: cursor } = trim(change(current.current), shownAtMost.current);
    current.current = kept;
    setItems(kept);
    if (cursor !== undefined) setNext(cursor);
    return cursor !== undefined;
  }, []);

  const loadFirst = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const page = await api.get<Page>(`/v1/inbox?limit=${PAGE}`);
      if (mine !== generation.current) return;
      shownAtMost.current = PAGE;
      const cut = update((shown) => {
        // Keep answered cards still on screen, and parks the stream brought that are newer than the page.
        const newest = page.items[0]?.park.createdAt ?? Number.NEGATIVE_INFINITY;
        const kept = shown.filter((item) => item.park.status !== 'open' || item.park.createdAt > newest);
        const ids = new Set(kept.map((item) => item.park.id));
        return mergeNewestFirst([...kept, ...page.items.filter((item) => !ids.has(item.park.id))]);
      });
      if (!cut) setNext(page.next);
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
          update((shown) =>
            shown.some((each) => each.park.id === item.park.id) ? shown : mergeNewestFirst([item, ...shown]),
          );
          setNews(revealInvisible(`New park: ${item.park.kind} ${item.park.call?.name ?? ''} in run ${item.run.id}`));
        } else if (event.event === 'park-answered') {
          const answer = JSON.parse(event.data) as InboxParkAnswered;
          update((shown) =>
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
          setNews(revealInvisible(`Park ${answer.parkId} answered by ${answer.by}`));
        } else if (event.event === 'park-closed') {
          const closed = JSON.parse(event.data) as InboxParkClosed;
          update((shown) =>
            shown.map((each) =>
              each.park.id === closed.parkId && each.park.status === 'open'
                ? { ...each, park: { ...each.park, status: 'closed' } }
                : each,
            ),
          );
          setNews(revealInvisible(`Park ${closed.parkId} closed: ${closed.reason}`));
        } else if (event.event === 'run-ended') {
          const ended = JSON.parse(event.data) as InboxRunEnded;
          update((shown) =>
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
      const page = await api.get<Page>(`/v1/inbox?limit=${PAGE}&after=${encodeURIComponent(next)}`);
      shownAtMost.current += PAGE;
      if (!update((shown) => mergeNewestFirst([...shown, ...page.items]))) setNext(page.next);
    } catch (thrown) {
      setError(thrown);
    }
  };

  const answered = useCallback(
    (park: ParkRow) => update((shown) => shown.map((each) => (each.park.id === park.id ? { ...each, park } : each))),
    [],
  );
  const dismiss = () => update((shown) => shown.filter((each) => each.park.status === 'open'));
  const open = items.filter((item) => item.park.status === 'open').length;

  return (
    <section aria-labelledby="inbox-heading">
      <div class="page-head">
        <h2 id="inbox-heading" tabIndex={-1} data-focus-home>
          Inbox
        </h2>
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

/** Open parks a page holds. */
const PAGE = 50;

/**
 * The first `max` open parks (and the answered cards among them); when some were left out, the
 * cursor of the last one kept, to load the rest with "Older parks".
 */
function trim(items: readonly InboxItem[], max: number): { kept: readonly InboxItem[]; next?: string } {
  let open = 0;
  for (const [index, item] of items.entries()) {
    if (item.park.status !== 'open') continue;
    open += 1;
    if (open > max) {
      const kept = items.slice(0, index);
      const last = kept.filter((each) => each.park.status === 'open').at(-1)?.park;
      return { kept, ...(last ? { next: `${last.createdAt}:${last.id}` } : {}) };
    }
  }
  return { kept: items };
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
