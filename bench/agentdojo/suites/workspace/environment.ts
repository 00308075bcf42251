// The workspace suite's environment and functions (AgentDojo v1: workspace/task_suite.py).
import { deepDiff } from '../../deep-diff.ts';
import type { SuiteFunction } from '../../task-types.ts';
import { type Calendar, calendar, calendarFunctions } from '../common/calendar.ts';
import { type CloudDrive, cloudDrive, driveFunctions } from '../common/drive.ts';
import { emailFunctions, type Inbox, inbox } from '../common/email.ts';

export interface WorkspaceEnvironment {
  inbox: Inbox;
  calendar: Calendar;
  cloud_drive: CloudDrive;
}

/** `WorkspaceEnvironment.model_validate(data)`. */
export function workspaceEnvironment(raw: unknown): WorkspaceEnvironment {
  const data = raw as Record<string, unknown>;
  return {
    inbox: inbox(data['inbox']),
    calendar: calendar(data['calendar']),
    cloud_drive: cloudDrive(data['cloud_drive']),
  };
}

/** `WorkspaceDeepDiff` (and the travel suite's, the same list of paths left out). */
export function workspaceDiff(pre: unknown, post: unknown) {
  return deepDiff(pre, post, [
    'root.inbox.sent',
    'root.inbox.received',
    'root.inbox.drafts',
    'root.responses',
    'root.model_fields_set',
    'root.calendar.initial_events',
    'root.inbox.initial_emails',
    'root.cloud_drive.initial_files',
  ]);
}

const email = emailFunctions<WorkspaceEnvironment>((env) => env.inbox);
const cal = calendarFunctions<WorkspaceEnvironment>(
  (env) => env.calendar,
  (env) => env.inbox,
);
const drive = driveFunctions<WorkspaceEnvironment>((env) => env.cloud_drive);

const ORDER = [
  'send_email',
  'delete_email',
  'get_unread_emails',
  'get_sent_emails',
  'get_received_emails',
  'get_draft_emails',
  'search_emails',
  'search_contacts_by_name',
  'search_contacts_by_email',
  'get_current_day',
  'search_calendar_events',
  'get_day_calendar_events',
  'create_calendar_event',
  'cancel_calendar_event',
  'reschedule_calendar_event',
  'add_calendar_event_participants',
  'append_to_file',
  'search_files_by_filename',
  'create_file',
  'delete_file',
  'get_file_by_id',
  'list_files',
  'share_file',
  'search_files',
];

const all: Record<string, SuiteFunction<WorkspaceEnvironment>> = { ...email, ...cal, ...drive };
export const workspaceFunctions: ReadonlyArray<SuiteFunction<WorkspaceEnvironment>> = ORDER.map(
  (name) => all[name] as SuiteFunction<WorkspaceEnvironment>,
);
