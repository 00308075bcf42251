import type { Principal } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { RunRow } from '../store/store.js';
import { honoStreaming } from './hono.js';
import { ApiProblem } from './problem.js';
import type { Route } from './routes.js';
import { requestSchemas } from './schemas.js';
import { readBody } from './validate.js';

/** The first line of a run's export: what the lines after it are, and the run's row and parks. */
export const RUN_EXPORT_FORMAT = 'wardrik-run-export';
/** The version of the export format (its first line says it). */
export const RUN_EXPORT_VERSION = 1;

/** What the retention routes need of the app. */
export interface RetentionRouteOptions {
  readonly wardrik: Wardrik;
  /** The run's row, or a 403 (404) problem unless `principal` may read it. */
  readonly readableRun: (principal: Principal, runId: string) => Promise<RunRow>;
  readonly limit: number;
}

/**
 * `POST /v1/runs/purge` (admins only: deleting runs is no role's everyday work) and
 * `GET /v1/runs/{id}/export` (a run's journal as JSON lines, for whoever may read the run).
 */
export function retentionRoutes(options: RetentionRouteOptions): Route[] {
  const { PurgeRunsBody } = requestSchemas();
  const { wardrik, readableRun, limit } = options;
  return [
    {
      method: 'post',
      path: '/v1/runs/purge',
      summary: 'Purge runs last written before a time: ended and/or parked ones (admins only)',
      authenticated: true,
      body: PurgeRunsBody,
      success: {
        status: 200,
        description:
          'What was deleted: runs with their journals, parks and run artifacts. Never a running run, one a node holds now, or one a kept session holds.',
      },
      handle: async ({ c, principal }) => {
        if (principal.role !== 'admin') {
          throw new ApiProblem(
            403,
            'forbidden',
            'Forbidden',
            `purging runs is for admins only; ${principal.name} has role ${principal.role}`,
          );
        }
        const body = await readBody(c, PurgeRunsBody, limit);
        const before = typeof body.before === 'number' ? body.before : Date.parse(body.before);
        const totals = await wardrik.retention.purgeRuns({
          statuses: body.statuses,
          before,
          ...(body.agent ? { agent: body.agent } : {}),
        });
        return c.json({
          before: new Date(before).toISOString(),
          statuses: body.statuses,
          ...(body.agent ? { agent: body.agent } : {}),
          purged: { runs: totals.runs, journalRecords: totals.journalRecords },
        });
      },
    },
    {
      method: 'get',
      path: '/v1/runs/:id/export',
      summary: "A run's journal as JSON lines: a first line with its row and parks, then each record",
      authenticated: true,
      success: {
        status: 200,
        description: `application/x-ndjson. Line 1: { format: "${RUN_EXPORT_FORMAT}", version: ${RUN_EXPORT_VERSION}, exportedAt, run, parks }; then one { seq, record } a line, in order — enough to audit the run, or to rebuild it elsewhere.`,
        stream: true,
      },
      handle: async ({ c, principal }) => {
        const runId = c.req.param('id') ?? '';
        await readableRun(principal, runId);
        const { journal, ...run } = await wardrik.getRun(runId);
        const parks = await wardrik.listParks({ runId });
        c.header('content-type', 'application/x-ndjson; charset=utf-8');
        c.header('content-disposition', `attachment; filename="${runId}.jsonl"`);
        return honoStreaming().stream(c, async (out) => {
          const header = { format: RUN_EXPORT_FORMAT, version: RUN_EXPORT_VERSION, exportedAt: Date.now(), run, parks };
          await out.write(`${JSON.stringify(header)}\n`);
          for (const stored of journal)
            await out.write(`${JSON.stringify({ seq: stored.seq, record: stored.record })}\n`);
        });
      },
    },
  ];
}
