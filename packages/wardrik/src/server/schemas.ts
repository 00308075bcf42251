import { once, zod } from './zod.js';

/**
 * The request schemas (bodies and query strings of the API's routes), built on first use and kept:
 * `const { StartRunBody } = requestSchemas()`.
 */
export const requestSchemas = once(() => {
  const z = zod();
  /** Budget limits, each a positive number. */
  const BudgetSchema = z
    .object({
      usd: z.number().positive().optional(),
      tokens: z.number().positive().optional(),
      steps: z.number().int().positive().optional(),
    })
    .strict();

  /** POST /v1/runs */
  const StartRunBody = z
    .object({
      agent: z.string().min(1).describe('The agent to run.'),
      input: z.string().trim().min(1).describe('The message for the agent.'),
      wait: z.boolean().optional().describe('Answer only once the run ends or parks.'),
      budget: BudgetSchema.optional().describe("Limits for this run, replacing the agent's where given."),
      session: z
        .string()
        .min(1)
        .optional()
        .describe('The session the run continues (its runs take turns; 409 while the one before is going).'),
    })
    .strict();

  /** POST /v1/sessions */
  const CreateSessionBody = z
    .object({
      agent: z.string().min(1).describe('The agent the session talks to.'),
      id: z.string().min(1).max(128).optional().describe('An id of your choosing (1–128 of A–Z a–z 0–9 _ - .).'),
    })
    .strict();

  /** GET /v1/sessions */
  const ListSessionsQuery = z
    .object({
      agent: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    })
    .strict();

  /** GET /v1/sessions/{id} */
  const SessionDetailsQuery = z
    .object({
      messages: z.coerce
        .number()
        .int()
        .min(0)
        .max(10_000)
        .optional()
        .describe('How many of the latest messages (default 200).'),
    })
    .strict();

  /** POST /v1/sessions/{id}/state */
  const EditStateBody = z
    .object({
      set: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('New JSON values by key (cart, user:name, app:flags).'),
      delete: z.array(z.string()).optional().describe('Keys to delete.'),
      reason: z.string().trim().min(1).describe('Why; kept with the change and who made it.'),
    })
    .strict();

  /** A person's decision on a park. */
  const DecisionSchema = z.discriminatedUnion('type', [
    z.object({ type: z.literal('answer'), value: z.unknown() }).strict(),
    z
      .object({
        type: z.literal('retry'),
        note: z.string().optional(),
        previousHolderStopped: z.literal(true).optional(),
      })
      .strict(),
    z.object({ type: z.literal('fail'), reason: z.string().optional() }).strict(),
    z.object({ type: z.literal('raise-budget'), budget: BudgetSchema }).strict(),
    z
      .object({
        type: z.literal('approve'),
        note: z.string().optional(),
        remember: z.enum(['run', 'agent']).optional(),
      })
      .strict(),
    z.object({ type: z.literal('deny'), reason: z.string().optional() }).strict(),
    z
      .object({ type: z.literal('edit'), arguments: z.record(z.string(), z.unknown()), note: z.string().optional() })
      .strict(),
    z.object({ type: z.literal('stop'), reason: z.string().optional() }).strict(),
  ]);

  /** POST /v1/parks/{id}/answer */
  const AnswerParkBody = z
    .object({
      decision: DecisionSchema,
      callHash: z.string().min(1).describe('The park.callHash you were shown: binds the answer to that exact call.'),
    })
    .strict();

  /** POST /v1/runs/{id}/labels/release */
  const ReleaseLabelsBody = z
    .object({
      labels: z.array(z.string().min(1)).min(1).describe('The labels to release, e.g. ["outside"].'),
      reason: z.string().trim().min(1).describe('Why they may be released; journaled with who did it.'),
    })
    .strict();

  /** POST /v1/runs/{id}/cancel */
  const CancelRunBody = z.object({ reason: z.string().min(1).optional() }).strict();

  /** POST /v1/tokens */
  const CreateTokenBody = z
    .object({
      name: z.string().min(1).describe('The principal: an existing one gets a new token; a new name creates it.'),
      role: z.enum(['admin', 'operator', 'user', 'worker']).optional().describe('Required for a new principal.'),
      kind: z.enum(['user', 'service', 'worker']).optional(),
      agents: z.array(z.string().min(1)).min(1).optional().describe("The agents it may use; ['*'] for all."),
      expiresAt: z
        .number()
        .int()
        .optional()
        .describe('When the token stops working on its own (ms since the epoch, in the future). Default: never.'),
    })
    .strict();

  /** GET /v1/runs */
  const ListRunsQuery = z
    .object({
      status: z.enum(['running', 'parked', 'completed', 'failed', 'cancelled']).optional(),
      agent: z.string().optional(),
      principal: z.string().optional().describe('Only the runs acting for this principal (users see only their own).'),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    })
    .strict();

  /** GET /v1/inbox */
  const InboxQuery = z
    .object({
      limit: z.coerce.number().int().min(1).max(500).optional().describe('Parks per page (default 50).'),
      after: z.string().min(3).optional().describe('The next page: the cursor the previous page gave as next.'),
    })
    .strict();

  /** GET /v1/parks */
  const ListParksQuery = z
    .object({
      status: z.enum(['open', 'answered', 'closed']).optional(),
      runId: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    })
    .strict();

  /** GET /v1/runs/{id}/events */
  const RunEventsQuery = z
    .object({
      after: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Resume after this seq, as Last-Event-ID does (the header wins when both are sent).'),
    })
    .strict();

  /** POST /v1/runs/purge */
  const PurgeRunsBody = z
    .object({
      before: z
        .union([z.iso.datetime({ offset: true }), z.iso.date(), z.number().int().nonnegative()])
        .describe(
          'Purge runs last written before this: an ISO date (2026-01-01), date-time (2026-01-01T00:00:00Z) or ms since the epoch.',
        ),
      statuses: z
        .array(z.enum(['completed', 'failed', 'cancelled', 'parked']))
        .min(1)
        .describe('Which runs: ended ones (completed, failed, cancelled) and/or parked ones. Running runs never are.'),
      agent: z.string().min(1).optional().describe("Only this agent's runs."),
    })
    .strict();
  return {
    BudgetSchema,
    StartRunBody,
    CreateSessionBody,
    ListSessionsQuery,
    SessionDetailsQuery,
    EditStateBody,
    DecisionSchema,
    AnswerParkBody,
    ReleaseLabelsBody,
    CancelRunBody,
    CreateTokenBody,
    ListRunsQuery,
    InboxQuery,
    ListParksQuery,
    RunEventsQuery,
    PurgeRunsBody,
  };
});
