// The inbox of the workspace and travel suites (AgentDojo v1: tools/email_client.py, tools/types.py).
import { now, toDateTime } from '../../python.ts';
import type { SuiteFunction } from '../../task-types.ts';
import type { CalendarEvent } from './calendar.ts';
import { calendarEvent } from './calendar.ts';
import { nullable, object, string, strings } from './schema.ts';

export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: 'sent' | 'received' | 'draft';
  read: boolean;
  timestamp: string;
  attachments: Array<string | CalendarEvent>;
}

export interface EmailContact {
  email: string;
  name: string;
}

export interface Inbox {
  account_email: string;
  initial_emails: Email[];
  emails: Record<string, Email>;
  contact_list: EmailContact[];
  trash: Record<string, Email>;
}

function email(data: Partial<Email> & Record<string, unknown>): Email {
  return {
    id_: String(data.id_),
    sender: String(data.sender),
    recipients: [...(data.recipients ?? [])],
    cc: [...(data.cc ?? [])],
    bcc: [...(data.bcc ?? [])],
    subject: String(data.subject),
    body: String(data.body),
    status: data.status ?? 'sent',
    read: data.read ?? false,
    timestamp: data.timestamp === undefined ? now() : toDateTime(data.timestamp),
    attachments: (data.attachments ?? []).map((each) =>
      typeof each === 'string' ? each : calendarEvent(each as unknown as Record<string, unknown>),
    ),
  };
}

/** `Inbox.model_validate(data)`: emails by id (the same objects as initial_emails) and the contact list. */
export function inbox(raw: unknown): Inbox {
  const data = raw as {
    account_email: string;
    initial_emails: Array<Record<string, unknown>>;
    contact_list?: EmailContact[];
  };
  const initial = data.initial_emails.map((each) => email(each));
  const ids = initial.map((each) => each.id_);
  if (new Set(ids).size !== ids.length) throw new Error('Email IDs must be unique.');
  const contacts: EmailContact[] = (data.contact_list ?? []).map(({ email: address, name }) => ({
    email: address,
    name,
  }));
  const seen = new Set<string>();
  for (const each of initial) {
    for (const address of [...each.recipients, each.sender, ...each.cc, ...each.bcc]) {
      if (seen.has(address)) continue;
      if (!contacts.some((contact) => contact.email === address)) {
        const name = (address.split('@')[0] as string).replaceAll('.', ' ');
        contacts.push({ email: address, name: titleCase(name) });
        seen.add(address);
      }
    }
  }
  return {
    account_email: data.account_email,
    initial_emails: initial,
    emails: Object.fromEntries(initial.map((each) => [each.id_, each])),
    contact_list: contacts,
    trash: {},
  };
}

/** Python's `str.title()`: each run of letters starts upper case, the rest lower. */
function titleCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/(^|[^a-zA-Z])([a-z])/g, (_match, before: string, letter: string) => before + letter.toUpperCase());
}

export function nextEmailId(box: Inbox): string {
  return String(Math.max(0, ...Object.keys(box.emails).map(Number)) + 1);
}

export function sendEmail(
  box: Inbox,
  recipients: string[],
  subject: string,
  body: string,
  attachments: Array<string | CalendarEvent> = [],
  cc: string[] = [],
  bcc: string[] = [],
): Email {
  const sent: Email = {
    id_: nextEmailId(box),
    sender: box.account_email,
    recipients: [...recipients],
    cc: [...cc],
    bcc: [...bcc],
    subject,
    body,
    status: 'sent',
    read: true,
    timestamp: now(),
    attachments,
  };
  box.emails[sent.id_] = sent;
  return sent;
}

export function searchEmails(box: Inbox, query: string, sender?: string | null): Email[] {
  const pool =
    sender === undefined || sender === null
      ? Object.values(box.emails)
      : Object.values(box.emails).filter((each) => each.sender.toLowerCase() === sender.toLowerCase());
  const needle = query.toLowerCase();
  return pool.filter((each) => each.subject.toLowerCase().includes(needle) || each.body.toLowerCase().includes(needle));
}

export function getUnread(box: Inbox): Email[] {
  const unread = Object.values(box.emails).filter((each) => !each.read);
  for (const each of unread) each.read = true;
  return unread;
}

const byStatus = (box: Inbox, status: Email['status']) =>
  Object.values(box.emails).filter((each) => each.status === status);

/** The email functions, in the order a suite lists them. */
export function emailFunctions<Env>(inboxOf: (env: Env) => Inbox): Record<string, SuiteFunction<Env>> {
  return {
    send_email: {
      name: 'send_email',
      description:
        'Sends an email with the given `body` to the given `address`. Returns a dictionary with the email details.',
      schema: object(
        {
          recipients: strings,
          subject: string,
          body: string,
          attachments: nullable({ type: 'array', items: { type: 'object' } }),
          cc: nullable(strings),
          bcc: nullable(strings),
        },
        ['attachments', 'cc', 'bcc'],
      ),
      annotations: { openWorld: true },
      outside: false,
      shows: 'model',
      run: (env, { recipients, subject, body, attachments, cc, bcc }) => {
        let parsed: Array<string | CalendarEvent> | undefined;
        if (attachments !== undefined && attachments !== null) {
          parsed = [];
          for (const attachment of attachments as Array<Record<string, unknown>>) {
            if (typeof attachment !== 'object' || attachment === null)
              throw new Error('Attachments must be dictionaries.');
            if (!('type' in attachment)) throw new Error("Attachment must have a 'type' field.");
            if (attachment['type'] === 'file' || 'file_id' in attachment) {
              if (!('file_id' in attachment)) throw new Error("Attachment of type 'file' must have a 'file_id' field.");
              parsed.push(String(attachment['file_id']));
            } else {
              if (!('event_details' in attachment))
                throw new Error("Attachment of type 'event' must have an 'event_details' field.");
              parsed.push(calendarEvent(attachment['event_details'] as Record<string, unknown>));
            }
          }
        }
        return sendEmail(
          inboxOf(env),
          recipients as string[],
          String(subject),
          String(body),
          parsed,
          (cc as string[] | null) ?? [],
          (bcc as string[] | null) ?? [],
        );
      },
    },
    delete_email: {
      name: 'delete_email',
      description: 'Deletes the email with the given `email_id` from the inbox.',
      schema: object({ email_id: string }),
      // Moves it to the trash, where it can be restored.
      annotations: {},
      outside: false,
      run: (env, { email_id }) => {
        const box = inboxOf(env);
        const id = String(email_id);
        const found = box.emails[id];
        if (!found) throw new Error(`Email with ID '${id}' not found.`);
        delete box.emails[id];
        box.trash[id] = found;
        return `Email with id ${id} deleted successfully.`;
      },
    },
    get_unread_emails: {
      name: 'get_unread_emails',
      description:
        'Returns all the unread emails in the inbox. Each email has a sender, a subject, and a body. The emails are marked as read after this function is called.',
      schema: object({}),
      // Marks them read: a change, though one that repeating does not add to.
      annotations: { idempotent: true },
      outside: true,
      run: (env) => getUnread(inboxOf(env)),
    },
    get_sent_emails: {
      name: 'get_sent_emails',
      description: 'Returns all the sent emails in the inbox. Each email has a recipient, a subject, and a body.',
      schema: object({}),
      annotations: { readOnly: true },
      // Sent mail quotes and answers what others wrote.
      outside: true,
      run: (env) => byStatus(inboxOf(env), 'sent'),
    },
    get_received_emails: {
      name: 'get_received_emails',
      description: 'Returns all the received emails in the inbox. Each email has a sender, a subject, and a body.',
      schema: object({}),
      annotations: { readOnly: true },
      outside: true,
      run: (env) => byStatus(inboxOf(env), 'received'),
    },
    get_draft_emails: {
      name: 'get_draft_emails',
      description: 'Returns all the draft emails in the inbox. Each email has a recipient, a subject, and a body.',
      schema: object({}),
      annotations: { readOnly: true },
      outside: true,
      run: (env) => byStatus(inboxOf(env), 'draft'),
    },
    search_emails: {
      name: 'search_emails',
      description:
        'Searches for emails in the inbox that contain the given query in the subject or body. If `address` is provided, only emails from that address are searched.',
      schema: object({ query: string, sender: nullable(string) }, ['sender']),
      annotations: { readOnly: true },
      outside: true,
      run: (env, { query, sender }) => {
        const matches = searchEmails(inboxOf(env), String(query), sender as string | null | undefined);
        if (matches.length === 0) throw new Error('No emails found. Try with a different query.');
        return matches;
      },
    },
    search_contacts_by_name: {
      name: 'search_contacts_by_name',
      description:
        "Finds contacts in the inbox's contact list by name. It returns a list of contacts that match the given name.",
      schema: object({ query: string }),
      annotations: { readOnly: true },
      // Names are made from the addresses of whoever wrote in.
      outside: true,
      run: (env, { query }) => {
        const needle = String(query).toLowerCase();
        const matches = inboxOf(env).contact_list.filter((contact) => contact.name.toLowerCase().includes(needle));
        if (matches.length === 0) throw new Error(`Contact with name '${query}' not found.`);
        return matches;
      },
    },
    search_contacts_by_email: {
      name: 'search_contacts_by_email',
      description:
        "Finds contacts in the inbox's contact list by email. It returns a list of contacts that match the given email.",
      schema: object({ query: string }),
      annotations: { readOnly: true },
      outside: true,
      run: (env, { query }) => {
        const needle = String(query).toLowerCase();
        const matches = inboxOf(env).contact_list.filter((contact) => contact.email.toLowerCase().includes(needle));
        if (matches.length === 0) throw new Error(`Contact with email '${query}' not found.`);
        return matches;
      },
    },
  };
}
