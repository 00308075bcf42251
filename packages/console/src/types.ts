/**
 * What the `/v1` API answers, as the console names it: each type is the server's own, from
 * `api-types.ts` (generated from its OpenAPI document: see `scripts/api-types.ts`), never a copy.
 */
import type { components } from './api-types';

type Schemas = components['schemas'];

export type Measures = Schemas['Measures'];
export type RunStatus = Schemas['RunStatus'];
export type ParkKind = Schemas['ParkKind'];
/** The actions `GET /v1/me` says the token may take or not. */
export type Action = Schemas['Action'];
export type Principal = Schemas['Principal'];
/** `GET /v1/me`. */
export type Me = Schemas['Me'];
export type RunRow = Schemas['RunRow'];
/** A run with its journal (`GET /v1/runs/{id}`). */
export type RunDetails = Schemas['RunDetails'];
/** A person's decision on a park. */
export type Decision = Schemas['ParkDecision'];
export type ParkRow = Schemas['ParkRow'];
/** A tool call's answer, as journaled. */
export type Answer = Schemas['Answer'];
/** A journal record as the API gives it (with its seq). */
export type StoredRecord = Schemas['StoredRecord'];
export type JournalRecord = Schemas['JournalRecord'];
/** One open park in the inbox (`GET /v1/inbox`, and `park-opened` on `/v1/inbox/events`). */
export type InboxItem = Schemas['InboxItem'];
/** A page of the inbox. */
export type InboxPage = Schemas['InboxPage'];
/** `park-answered` on `/v1/inbox/events`. */
export type InboxParkAnswered = Schemas['InboxParkAnswered'];
/** `park-closed` on `/v1/inbox/events`: a call's question withdrawn while its run goes on. */
export type InboxParkClosed = Schemas['InboxParkClosed'];
/** `run-ended` on `/v1/inbox/events`. */
export type InboxRunEnded = Schemas['InboxRunEnded'];
export type WorkerInfo = Schemas['WorkerInfo'];
export type TokenInfo = Schemas['TokenInfo'];
/** `POST /v1/tokens`: the token, shown once. */
export type IssuedToken = Schemas['IssuedToken'];
export type SessionRow = Schemas['SessionRow'];
/** A session with its runs, messages, state and edits (`GET /v1/sessions/{id}`). */
export type SessionDetails = Schemas['SessionDetails'];
/** An RFC 9457 problem as the API sends it. */
export type ApiProblem = Schemas['Problem'];
