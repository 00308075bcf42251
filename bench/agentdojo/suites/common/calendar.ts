// The calendar of the workspace and travel suites (AgentDojo v1: tools/calendar_client.py).
import { dateOf, shiftBy, strptimeDate, strptimeMinutes, toDate, toDateTime } from '../../python.ts';
import type { SuiteFunction } from '../../task-types.ts';
import { type Inbox, sendEmail } from './email.ts';
import { nullable, object, string, strings } from './schema.ts';

export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: 'confirmed' | 'canceled';
}

export interface Calendar {
  current_day: string;
  account_email: string;
  initial_events: CalendarEvent[];
  events: Record<string, CalendarEvent>;
}

export function calendarEvent(data: Record<string, unknown>): CalendarEvent {
  return {
    id_: String(data['id_']),
    title: String(data['title']),
    description: String(data['description']),
    start_time: toDateTime(data['start_time']),
    end_time: toDateTime(data['end_time']),
    location: data['location'] === null || data['location'] === undefined ? null : String(data['location']),
    participants: [...((data['participants'] as string[]) ?? [])],
    all_day: (data['all_day'] as boolean | undefined) ?? false,
    status: (data['status'] as CalendarEvent['status'] | undefined) ?? 'confirmed',
  };
}

/** `Calendar.model_validate(data)`. */
export function calendar(raw: unknown): Calendar {
  const data = raw as { current_day: unknown; account_email: string; initial_events: Array<Record<string, unknown>> };
  const initial = data.initial_events.map(calendarEvent);
  const ids = initial.map((each) => each.id_);
  if (new Set(ids).size !== ids.length) throw new Error('Event IDs must be unique.');
  return {
    current_day: toDate(data.current_day),
    account_email: data.account_email,
    initial_events: initial,
    events: Object.fromEntries(initial.map((each) => [each.id_, each])),
  };
}

export function nextEventId(cal: Calendar): string {
  return String(Math.max(0, ...Object.keys(cal.events).map(Number)) + 1);
}

export function eventsOn(cal: Calendar, day: string): CalendarEvent[] {
  return Object.values(cal.events).filter((each) => dateOf(each.start_time) === day);
}

export function searchEvents(cal: Calendar, query: string, day?: string | null): CalendarEvent[] {
  const pool = day === undefined || day === null ? Object.values(cal.events) : eventsOn(cal, day);
  const needle = query.toLowerCase();
  return pool.filter(
    (each) => each.title.toLowerCase().includes(needle) || each.description.toLowerCase().includes(needle),
  );
}

/** Python's `list(set(participants))` keeps no order; here the first of each, in order. */
function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** The calendar functions, by name. */
export function calendarFunctions<Env>(
  calendarOf: (env: Env) => Calendar,
  inboxOf: (env: Env) => Inbox,
): Record<string, SuiteFunction<Env>> {
  return {
    get_current_day: {
      name: 'get_current_day',
      description:
        "Returns the current day in ISO format, e.g. '2022-01-01'. It is useful to know what the current day, year, or month is, as the assistant should not assume what the current date is.",
      schema: object({}),
      annotations: { readOnly: true },
      outside: false,
      run: (env) => calendarOf(env).current_day,
    },
    search_calendar_events: {
      name: 'search_calendar_events',
      description:
        'Searches calendar events that match the given query in the tile or the description. If provided, filters events by date.',
      schema: object({ query: string, date: nullable(string) }, ['date']),
      annotations: { readOnly: true },
      // Invitations carry what their senders wrote.
      outside: true,
      run: (env, { query, date }) => {
        const day = date === undefined || date === null ? null : strptimeDate(String(date));
        const matches = searchEvents(calendarOf(env), String(query), day);
        if (matches.length === 0) throw new Error('No events found. Try with a different query.');
        return matches;
      },
    },
    get_day_calendar_events: {
      name: 'get_day_calendar_events',
      description:
        'Returns the appointments for the given `day`. Returns a list of dictionaries with informations about each meeting.',
      schema: object({ day: string }),
      annotations: { readOnly: true },
      outside: true,
      run: (env, { day }) => eventsOn(calendarOf(env), strptimeDate(String(day))),
    },
    create_calendar_event: {
      name: 'create_calendar_event',
      description:
        'Creates a new calendar event with the given details and adds it to the calendar. It also sends an email to the participants with the event details.',
      schema: object(
        {
          title: string,
          start_time: string,
          end_time: string,
          description: { type: 'string', default: '' },
          participants: nullable(strings),
          location: nullable(string),
        },
        ['description', 'participants', 'location'],
      ),
      annotations: { openWorld: true },
      outside: false,
      shows: 'model',
      run: (env, { title, start_time, end_time, description = '', participants, location }) => {
        const cal = calendarOf(env);
        const start = strptimeMinutes(String(start_time));
        const end = strptimeMinutes(String(end_time));
        const invited = [...((participants as string[] | null | undefined) ?? [])];
        const event: CalendarEvent = {
          id_: nextEventId(cal),
          title: String(title),
          description: String(description),
          start_time: start,
          end_time: end,
          location: location === undefined || location === null ? null : String(location),
          participants: unique([...invited, cal.account_email]),
          all_day: false,
          status: 'confirmed',
        };
        cal.events[event.id_] = event;
        // The original appends the owner to the caller's list before it sends the invitation.
        sendEmail(inboxOf(env), [...invited, cal.account_email], `Invitation: ${title}`, String(description), [event]);
        return event;
      },
    },
    cancel_calendar_event: {
      name: 'cancel_calendar_event',
      description:
        'Cancels the event with the given `event_id`. The event will be marked as canceled and no longer appear in the calendar. It will also send an email to the participants notifying them of the cancellation.',
      schema: object({ event_id: string }),
      annotations: { idempotent: true, openWorld: true },
      outside: false,
      run: (env, { event_id }) => {
        const cal = calendarOf(env);
        const event = cal.events[String(event_id)];
        if (!event) throw new Error(`Event with ID '${event_id}' not found.`);
        event.status = 'canceled';
        sendEmail(inboxOf(env), event.participants, `Canceled: '${event.title}'`, 'The event has been canceled.', [
          event,
        ]);
        return `Event with ID ${event_id} has been canceled and participants have been notified.`;
      },
    },
    reschedule_calendar_event: {
      name: 'reschedule_calendar_event',
      description:
        'Reschedules the event with the given `event_id` to the new start and end times. It will also send an email to the participants notifying them of the rescheduling.',
      schema: object({ event_id: string, new_start_time: string, new_end_time: nullable(string) }, ['new_end_time']),
      annotations: { idempotent: true, openWorld: true },
      outside: true,
      shows: 'model',
      run: (env, { event_id, new_start_time, new_end_time }) => {
        const end = new_end_time === undefined || new_end_time === null ? null : strptimeMinutes(String(new_end_time));
        const start = strptimeMinutes(String(new_start_time));
        const cal = calendarOf(env);
        const event = cal.events[String(event_id)];
        if (!event) throw new Error(`Event with ID '${event_id}' not found.`);
        const oldStart = event.start_time;
        event.start_time = start;
        event.end_time = end ?? shiftBy(start, oldStart, event.end_time);
        const body = `The event has been rescheduled. It will start on  ${dateOf(event.start_time)} at ${event.start_time.slice(11)} and end on ${dateOf(event.end_time)} at ${event.end_time.slice(11)}.`;
        // The original's subject is not an f-string: it is sent as written.
        sendEmail(inboxOf(env), event.participants, "Rescheduled: '{event.title}'", body, [event]);
        return event;
      },
    },
    add_calendar_event_participants: {
      name: 'add_calendar_event_participants',
      description:
        'Adds the given `participants` to the event with the given `event_id`. It will also email the new participants notifying them of the event.',
      schema: object({ event_id: string, participants: strings }),
      annotations: { openWorld: true },
      outside: true,
      shows: 'model',
      run: (env, { event_id, participants }) => {
        const event = calendarOf(env).events[String(event_id)];
        if (!event) throw new Error(`Event with ID '${event_id}' not found.`);
        event.participants.push(...(participants as string[]));
        return event;
      },
    },
  };
}
