import type { z } from 'zod';
import { PARK_KINDS, type ParkKind as ParkKindName } from '../journal/records.js';
import { once, zod } from './zod.js';

/** The actions `GET /v1/me` reports (`may`), in its order. */
export const ACTIONS = [
  'agents.list',
  'run.start',
  'run.read',
  'run.cancel',
  'park.read',
  'park.answer',
  'labels.release',
  'state.edit',
  'app-state.edit',
  'tokens.manage',
  'workers.list',
] as const;

/** The id a response schema is registered under (a route's answer must name one of these). */
export function responseSchemaId(schema: z.ZodType): string {
  const id = responseSchemas().registry.get(schema)?.id;
  if (id === undefined) throw new Error('a response schema must be one of responseSchemas (see named)');
  return id;
}

/**
 * What the API answers, as zod schemas: the OpenAPI document names each one under
 * `components.schemas` (by its id here) and refers to it from the routes that answer with it, and
 * the console's types are generated from that document (`packages/console/src/api-types.ts`).
 *
 * They describe the JSON the server sends, not new rules: nothing checks a response against them
 * at run time. `console-api-types.test.ts` does, on real answers of a real server (every object is
 * closed, so a field the server sends and the schema does not name fails there, as does one it
 * names and the server does not send as described).
 *
 * Built on first use and kept (zod and these schemas cost nothing to an app that never serves
 * HTTP): `const responses = responseSchemas()`; `registry` holds every named one.
 */
export const responseSchemas = once(() => {
  const z = zod();
  const registry = z.registry<{ id: string }>();

  /** Registers `schema` under `id`: the document lists it as `#/components/schemas/<id>`. */
  function named<S extends z.ZodType>(id: string, schema: S): S {
    registry.add(schema, { id });
    return schema;
  }

  const Labels = z.array(z.string()).describe('Labels, e.g. outside.');
  const Time = z.number().describe('Milliseconds since the epoch.');

  const Measures = named(
    'Measures',
    z.record(z.string(), z.number()).describe('What was spent, by unit (usd, tokens, …).'),
  );

  const RunStatus = named('RunStatus', z.enum(['running', 'parked', 'completed', 'failed', 'cancelled']));

  const ParkKind = named('ParkKind', z.enum(PARK_KINDS as readonly [ParkKindName, ...ParkKindName[]]));

  const Budget = named(
    'Budget',
    z.object({ usd: z.number().optional(), tokens: z.number().optional(), steps: z.number().optional() }),
  );

  const ParkedCall = named(
    'ParkedCall',
    z.object({ callId: z.string(), name: z.string(), arguments: z.unknown(), idempotencyKey: z.string() }),
  );

  const CallHolder = named(
    'CallHolder',
    z.object({
      node: z.string(),
      incarnation: z.string(),
      epoch: z.number(),
      startedAt: Time.optional(),
    }),
  );

  /** The fields of a park, without its answer. */
  const parkFields = {
    id: z.string(),
    runId: z.string(),
    kind: ParkKind,
    reason: z.string(),
    details: z.unknown().optional(),
    call: ParkedCall.optional(),
    labels: Labels,
    measures: Measures.optional(),
    callHash: z.string().describe('What an answer must name: binds it to this exact call.'),
    rule: z.string().optional(),
    holder: CallHolder.optional(),
    handle: z.string().optional(),
    deadline: Time.optional(),
    resultLabels: Labels.optional(),
    createdAt: Time,
  };

  const Park = named('Park', z.object(parkFields));

  const ParkDecision = named(
    'ParkDecision',
    z.discriminatedUnion('type', [
      z.object({
        type: z.literal('answer'),
        value: z.unknown().optional(),
        labels: Labels.optional(),
        measures: Measures.optional(),
      }),
      z.object({
        type: z.literal('retry'),
        note: z.string().optional(),
        previousHolderStopped: z.literal(true).optional(),
      }),
      z.object({
        type: z.literal('fail'),
        reason: z.string().optional(),
        labels: Labels.optional(),
        measures: Measures.optional(),
      }),
      z.object({
        type: z.literal('approve'),
        note: z.string().optional(),
        remember: z.enum(['run', 'agent']).optional(),
      }),
      z.object({ type: z.literal('deny'), reason: z.string().optional() }),
      z.object({ type: z.literal('edit'), arguments: z.record(z.string(), z.unknown()), note: z.string().optional() }),
      z.object({ type: z.literal('raise-budget'), budget: Budget }),
      z.object({ type: z.literal('stop'), reason: z.string().optional() }),
    ]),
  );

  const ParkRow = named(
    'ParkRow',
    z.object({
      ...parkFields,
      status: z.enum(['open', 'answered', 'closed']),
      decision: ParkDecision.optional(),
      answeredBy: z.string().optional(),
      answeredAt: Time.optional(),
    }),
  );

  const Answer = named(
    'Answer',
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('ok'), value: z.unknown().optional(), measures: Measures, labels: Labels }),
      z.object({
        type: z.literal('error'),
        reason: z.string(),
        issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
        code: z.string().optional(),
        measures: Measures,
        labels: Labels,
      }),
      z.object({
        type: z.literal('park'),
        reason: z.string(),
        details: z.unknown().optional(),
        external: z.object({ handle: z.string(), deadlineMs: z.number().optional() }).optional(),
        measures: Measures,
        labels: Labels,
      }),
    ]),
  );

  const ModelToolCall = named(
    'ModelToolCall',
    z.object({
      callId: z.string(),
      modelCallId: z.string().optional(),
      name: z.string(),
      arguments: z.unknown(),
      invalidArguments: z.string().optional(),
    }),
  );

  const messageShapes = {
    user: { role: z.literal('user'), content: z.string() },
    assistant: { role: z.literal('assistant'), text: z.string(), toolCalls: z.array(ModelToolCall) },
    tool: {
      role: z.literal('tool'),
      callId: z.string(),
      modelCallId: z.string().optional(),
      name: z.string(),
      content: z.unknown().optional(),
      isError: z.boolean(),
      labels: Labels,
    },
  };

  const Message = named(
    'Message',
    z.discriminatedUnion('role', [
      z.object(messageShapes.user),
      z.object(messageShapes.assistant),
      z.object(messageShapes.tool),
    ]),
  );

  const StateWrite = named(
    'StateWrite',
    z.object({ key: z.string(), value: z.unknown().optional(), deleted: z.literal(true).optional(), labels: Labels }),
  );

  const recordBase = { v: z.number().describe('The journal format version.'), at: Time };

  const JournalRecord = named(
    'JournalRecord',
    z.discriminatedUnion('type', [
      z.object({
        ...recordBase,
        type: z.literal('run-started'),
        agent: z.string(),
        principal: z.string(),
        input: z.string(),
        budget: Budget,
        maxSteps: z.number(),
        app: z.string().optional(),
        session: z.string().optional(),
        history: z.array(Message).optional(),
        labels: Labels.optional(),
        parent: z.object({ runId: z.string(), callId: z.string() }).optional(),
        state: z.array(StateWrite).optional(),
        trace: z.record(z.string(), z.string()).optional(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('model-step'),
        step: z.number(),
        model: z.string(),
        text: z.string(),
        toolCalls: z.array(ModelToolCall),
        usage: z.object({
          inputTokens: z.number(),
          outputTokens: z.number(),
          cachedInputTokens: z.number().optional(),
          cacheWriteInputTokens: z.number().optional(),
        }),
        measures: Measures,
        truncated: z.literal(true).optional(),
        tools: z.array(z.string()).optional(),
        labels: Labels.optional(),
        unavailable: z.array(z.object({ toolset: z.string(), reason: z.string() })).optional(),
        agent: z.string().optional(),
        callback: z.enum(['beforeModel', 'afterModel']).optional(),
        outputRejected: z.string().optional(),
        unpinned: z
          .array(
            z.object({
              source: z.string(),
              tool: z.string(),
              hash: z.string().optional(),
              changed: z.literal(true).optional(),
            }),
          )
          .optional(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('call-changed'),
        callId: z.string(),
        arguments: z.unknown(),
        by: z.literal('beforeTool'),
      }),
      z.object({
        ...recordBase,
        type: z.literal('call-started'),
        callId: z.string(),
        name: z.string(),
        arguments: z.unknown(),
        idempotencyKey: z.string(),
        repeatable: z.boolean(),
        attempt: z.number(),
        rule: z.string().optional(),
        labels: Labels.optional(),
        holder: CallHolder.optional(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('call-answered'),
        callId: z.string(),
        answer: Answer,
        attempts: z.number(),
        rule: z.string().optional(),
        state: z.array(StateWrite).optional(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('agent-transferred'),
        callId: z.string(),
        from: z.string(),
        to: z.string(),
        reason: z.string().optional(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('child-run-started'),
        callId: z.string(),
        childRunId: z.string(),
        agent: z.string(),
      }),
      z.object({ ...recordBase, type: z.literal('run-parked'), park: Park }),
      z.object({ ...recordBase, type: z.literal('input-requested'), park: Park }),
      z.object({ ...recordBase, type: z.literal('input-withdrawn'), parkId: z.string(), reason: z.string() }),
      z.object({
        ...recordBase,
        type: z.literal('park-answered'),
        parkId: z.string(),
        decision: ParkDecision,
        by: z.string(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('labels-released'),
        labels: Labels,
        by: z.string(),
        reason: z.string(),
      }),
      z.object({
        ...recordBase,
        type: z.literal('run-ended'),
        status: z.enum(['completed', 'failed', 'cancelled']),
        output: z.string().optional(),
        error: z.string().optional(),
        labels: Labels,
        measures: Measures,
        state: z.array(StateWrite).optional(),
        guardrail: z.object({ name: z.string(), stage: z.enum(['input', 'output']), reason: z.string() }).optional(),
      }),
    ]),
  );

  const StoredRecord = named('StoredRecord', z.object({ runId: z.string(), seq: z.number(), record: JournalRecord }));

  const runFields = {
    id: z.string(),
    agent: z.string(),
    principal: z.string(),
    status: RunStatus,
    createdAt: Time,
    updatedAt: Time,
    measures: Measures,
    labels: Labels,
    output: z.string().optional(),
    error: z.string().optional(),
    attention: z.string().optional().describe("Why this Wardrik could not load the run's journal, when it could not."),
  };

  const RunRow = named('RunRow', z.object(runFields));

  const RunDetails = named('RunDetails', z.object({ ...runFields, journal: z.array(StoredRecord) }));

  const RunResult = named(
    'RunResult',
    z.object({
      runId: z.string(),
      status: RunStatus,
      output: z.string().optional(),
      error: z.string().optional(),
      labels: Labels,
      measures: Measures,
      parks: z.array(ParkRow).describe('The open parks, when parked.'),
    }),
  );

  const RunList = named('RunList', z.object({ runs: z.array(RunRow) }));

  const ParkList = named('ParkList', z.object({ parks: z.array(ParkRow) }));

  const principalFields = {
    id: z.string(),
    name: z.string(),
    kind: z.enum(['user', 'service', 'worker']),
    role: z.enum(['admin', 'operator', 'user', 'worker']),
    agents: z.array(z.string()).describe("The agents it may run, read or serve; ['*'] for all."),
  };

  const Principal = named('Principal', z.object({ ...principalFields, createdAt: Time }));

  const Action = named('Action', z.enum(ACTIONS));

  const Me = named(
    'Me',
    z.object({
      principal: z.object(principalFields),
      may: z
        .object(
          Object.fromEntries(ACTIONS.map((action) => [action, z.boolean()])) as Record<
            (typeof ACTIONS)[number],
            z.ZodBoolean
          >,
        )
        .describe('For each action, whether the token may take it.'),
    }),
  );

  const TokenInfo = named(
    'TokenInfo',
    z.object({
      id: z.string(),
      principalId: z.string(),
      createdAt: Time,
      revokedAt: Time.optional(),
      expiresAt: Time.optional().describe('When it stops working on its own; none: it works until revoked.'),
    }),
  );

  const TokenList = named('TokenList', z.object({ tokens: z.array(TokenInfo), principals: z.array(Principal) }));

  const IssuedToken = named(
    'IssuedToken',
    z.object({
      token: z.string().describe('The secret, shown only here.'),
      tokenId: z.string(),
      principal: Principal,
      expiresAt: Time.optional(),
    }),
  );

  const WorkerInfo = named(
    'WorkerInfo',
    z.object({
      definitions: z.array(
        z.object({
          name: z.string(),
          hash: z.string(),
          state: z.enum(['pinned', 'unpinned', 'changed', 'trusted']),
          definition: z.object({
            name: z.string(),
            title: z.string().optional(),
            description: z.string().optional(),
            inputSchema: z.unknown(),
            outputSchema: z.unknown().optional(),
            annotations: z.unknown().optional(),
          }),
        }),
      ),
      id: z.string(),
      principal: z.string(),
      node: z.string(),
      connectedAt: Time,
      tools: z.array(z.string()),
      modelNames: z.record(z.string(), z.string()),
      rejected: z.array(z.object({ name: z.string(), reason: z.string() })),
      inflight: z.number(),
    }),
  );

  const WorkerList = named('WorkerList', z.object({ workers: z.array(WorkerInfo) }));

  const sessionFields = {
    id: z.string(),
    agent: z.string(),
    app: z.string(),
    principal: z.string(),
    createdAt: Time,
    updatedAt: Time,
    runs: z.number(),
    lastRun: z.string().optional(),
  };

  const SessionRow = named('SessionRow', z.object(sessionFields));

  const SessionList = named('SessionList', z.object({ sessions: z.array(SessionRow) }));

  const scopedWrite = z.object({
    scope: z.string(),
    key: z.string(),
    value: z.unknown().optional(),
    deleted: z.literal(true).optional(),
    labels: Labels,
  });

  const SessionMessage = named(
    'SessionMessage',
    z.discriminatedUnion('role', [
      z.object({ ...messageShapes.user, runId: z.string() }),
      z.object({ ...messageShapes.assistant, runId: z.string() }),
      z.object({ ...messageShapes.tool, runId: z.string() }),
    ]),
  );

  const SessionDetails = named(
    'SessionDetails',
    z.object({
      ...sessionFields,
      runList: z.array(RunRow),
      messages: z.array(SessionMessage),
      earlierMessages: z.boolean(),
      state: z.array(
        z.object({
          scope: z.string(),
          key: z.string(),
          value: z.unknown().optional(),
          labels: Labels,
          updatedAt: Time,
          updatedBy: z.string(),
        }),
      ),
      edits: z.array(
        z.object({ id: z.number(), writes: z.array(scopedWrite), by: z.string(), reason: z.string(), at: Time }),
      ),
    }),
  );

  const InboxItem = named(
    'InboxItem',
    z.object({
      park: ParkRow,
      run: z.object({
        id: z.string(),
        agent: z.string(),
        principal: z.string(),
        status: RunStatus,
        measures: Measures,
        labels: Labels,
      }),
      schema: z.record(z.string(), z.unknown()).optional().describe('The JSON Schema of the tool the park holds.'),
    }),
  );

  const InboxPage = named(
    'InboxPage',
    z.object({
      items: z.array(InboxItem),
      next: z.string().optional().describe('The cursor of the next page (absent on the last page).'),
    }),
  );

  // The data of stream events, by event name (`success.events` of a streaming route).

  /** Data of an event stream's last event when the node stops (reconnect, and another node goes on). */
  const NodeStoppingEvent = named(
    'NodeStoppingEvent',
    z.object({ type: z.literal('node-stopping'), reason: z.string() }),
  );

  /** A journal record as a run event: its id is the seq. */
  const JournaledEvent = named(
    'JournaledEvent',
    z.object({
      type: z.enum([
        'run-started',
        'model-step',
        'call-changed',
        'call-started',
        'call-answered',
        'agent-transferred',
        'child-run-started',
        'run-parked',
        'input-requested',
        'input-withdrawn',
        'park-answered',
        'labels-released',
        'run-ended',
      ]),
      runId: z.string(),
      seq: z.number(),
      record: JournalRecord,
    }),
  );

  const TextDeltaEvent = named(
    'TextDeltaEvent',
    z.object({
      type: z.literal('text-delta'),
      runId: z.string(),
      seq: z.number(),
      step: z.number(),
      delta: z.string(),
    }),
  );

  const ModelRetryEvent = named(
    'ModelRetryEvent',
    z.object({
      type: z.literal('model-retry'),
      runId: z.string(),
      seq: z.number(),
      step: z.number(),
      attempt: z.number(),
      delayMs: z.number(),
      error: z.string(),
    }),
  );

  const CallProgressEvent = named(
    'CallProgressEvent',
    z.object({
      type: z.literal('call-progress'),
      runId: z.string(),
      seq: z.number(),
      callId: z.string(),
      name: z.string(),
      progress: z.number(),
      total: z.number().optional(),
      message: z.string().optional(),
    }),
  );

  /** `GET /v1/runs/{id}/events`: each event's data, by event name. */
  const RUN_EVENTS: Readonly<Record<string, z.ZodType>> = {
    ...Object.fromEntries(JournaledEvent.shape.type.options.map((type) => [type, JournaledEvent])),
    'text-delta': TextDeltaEvent,
    'model-retry': ModelRetryEvent,
    'call-progress': CallProgressEvent,
    'node-stopping': NodeStoppingEvent,
  };

  const InboxReady = named('InboxReady', z.object({}));

  const InboxParkAnswered = named(
    'InboxParkAnswered',
    z.object({ parkId: z.string(), runId: z.string(), decision: ParkDecision, by: z.string(), at: Time }),
  );

  const InboxRunEnded = named('InboxRunEnded', z.object({ runId: z.string(), status: RunStatus }));

  /** A question a call asked (an `input` park) closed without an answer while its run goes on. */
  const InboxParkClosed = named(
    'InboxParkClosed',
    z.object({ parkId: z.string(), runId: z.string(), reason: z.string() }),
  );

  /** `GET /v1/inbox/events`: each event's data, by event name. */
  const INBOX_EVENTS: Readonly<Record<string, z.ZodType>> = {
    ready: InboxReady,
    'park-opened': InboxItem,
    'park-answered': InboxParkAnswered,
    'park-closed': InboxParkClosed,
    'run-ended': InboxRunEnded,
    'node-stopping': NodeStoppingEvent,
  };

  return {
    registry,
    Measures,
    RunStatus,
    ParkKind,
    Budget,
    ParkedCall,
    CallHolder,
    Park,
    ParkDecision,
    ParkRow,
    Answer,
    ModelToolCall,
    Message,
    StateWrite,
    JournalRecord,
    StoredRecord,
    RunRow,
    RunDetails,
    RunResult,
    RunList,
    ParkList,
    Principal,
    Action,
    Me,
    TokenInfo,
    TokenList,
    IssuedToken,
    WorkerInfo,
    WorkerList,
    SessionRow,
    SessionList,
    SessionMessage,
    SessionDetails,
    InboxItem,
    InboxPage,
    NodeStoppingEvent,
    JournaledEvent,
    TextDeltaEvent,
    ModelRetryEvent,
    CallProgressEvent,
    RUN_EVENTS,
    InboxReady,
    InboxParkAnswered,
    InboxRunEnded,
    InboxParkClosed,
    INBOX_EVENTS,
  };
});
