import { isValidToolName } from '@wardrik/core';
import type { Action, Principal, Resource } from '../auth/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { SessionRow } from '../store/session-store.js';
import { ApiProblem } from './problem.js';
import { readBytes } from './read-bytes.js';
import { type Route, routeWithQuery } from './routes.js';
import { once, zod } from './zod.js';

/** GET /v1/sessions/{id}/artifacts/{name} */
const loadArtifactQuery = once(() => {
  const z = zod();
  return z
    .object({ version: z.coerce.number().int().min(1).optional().describe('Which version (default: the latest).') })
    .strict();
});

/** POST /v1/sessions/{id}/artifacts/{name} */
const saveArtifactQuery = once(() => {
  const z = zod();
  return z
    .object({
      labels: z
        .string()
        .optional()
        .describe('Labels the artifact carries, comma-separated (e.g. outside for a file from a stranger).'),
    })
    .strict();
});

/** The headers an artifact is sent with, beside its bytes. */
export const ARTIFACT_HEADERS = {
  version: 'wardrik-artifact-version',
  labels: 'wardrik-labels',
} as const;

/** What the artifact routes need of the app. */
export interface ArtifactRouteOptions {
  readonly wardrik: Wardrik;
  /** Throws a 403 problem naming why, unless `principal` may take `action`. */
  readonly allow: (principal: Principal, action: Action, resource?: Resource) => void;
}

/**
 * Artifacts over HTTP, by session (`user:` names are the session principal's). They follow the
 * session's permissions: reading is `run.read` (users their own sessions), uploading also
 * `run.start` (users and admins), deleting `run.cancel`. Uploads are the raw bytes with their
 * media type as `Content-Type`, at most `artifacts.maxBytes` (413). Downloads come as
 * attachments, never rendered by a browser on the API's origin (`Content-Security-Policy:
 * sandbox`, `nosniff`), with the version and labels in headers.
 */
export function artifactRoutes(options: ArtifactRouteOptions): Route[] {
  const { wardrik, allow } = options;
  const sessionFor = async (principal: Principal, id: string, action: Action): Promise<SessionRow> => {
    const session = await wardrik.getSession(id);
    allow(principal, action, { agent: session.agent, runPrincipal: session.principal });
    return session;
  };
  const nameOf = (c: { req: { param(name: string): string | undefined } }): string => c.req.param('name') ?? '';
  return [
    {
      method: 'get',
      path: '/v1/sessions/:id/artifacts',
      summary: 'List the artifacts of a session and of its principal (user: names): the latest version of each',
      authenticated: true,
      success: {
        status: 200,
        description: '{ artifacts: [{ name, version, mediaType, size, labels, savedAt, savedBy }] }',
      },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.read');
        return c.json({ artifacts: await wardrik.artifacts.list(id) });
      },
    },
    routeWithQuery({
      method: 'get',
      path: '/v1/sessions/:id/artifacts/:name',
      summary: 'Download an artifact (the latest version, or ?version=N): its bytes, with its media type',
      authenticated: true,
      query: loadArtifactQuery(),
      success: {
        status: 200,
        description: 'The bytes; wardrik-artifact-version and wardrik-labels headers.',
        binary: true,
      },
      problems: { 404: 'No such session, artifact or version.' },
      handle: async ({ c, principal, query }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.read');
        const artifact = await wardrik.artifacts.load(id, nameOf(c), query);
        const bare = artifact.name.startsWith('user:') ? artifact.name.slice('user:'.length) : artifact.name;
        return c.body(artifact.data as Uint8Array<ArrayBuffer>, 200, {
          'content-type': artifact.mediaType,
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(bare)}`,
          'content-security-policy': "sandbox; default-src 'none'",
          'x-content-type-options': 'nosniff',
          [ARTIFACT_HEADERS.version]: String(artifact.version),
          [ARTIFACT_HEADERS.labels]: artifact.labels.join(','),
        });
      },
    }),
    {
      method: 'get',
      path: '/v1/sessions/:id/artifacts/:name/versions',
      summary: 'Every version of an artifact, oldest first',
      authenticated: true,
      success: {
        status: 200,
        description: '{ versions: [{ name, version, mediaType, size, labels, savedAt, savedBy }] }',
      },
      problems: { 404: 'No such session or artifact.' },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.read');
        return c.json({ versions: await wardrik.artifacts.versions(id, nameOf(c)) });
      },
    },
    routeWithQuery({
      method: 'post',
      path: '/v1/sessions/:id/artifacts/:name',
      summary: 'Upload a new version of an artifact: the body is its bytes, Content-Type its media type',
      authenticated: true,
      query: saveArtifactQuery(),
      rawBody: 'The artifact’s bytes; Content-Type is its media type (type/subtype).',
      success: {
        status: 201,
        description: 'The version saved: { name, version, mediaType, size, labels, savedAt, savedBy }.',
      },
      problems: {
        400: 'A name that is not a file name (a path, control characters), a media type that is not type/subtype, or bad labels.',
        413: 'Over artifacts.maxBytes (default 10 MiB).',
        415: 'No Content-Type.',
      },
      handle: async ({ c, principal, query }) => {
        const id = c.req.param('id') ?? '';
        const session = await sessionFor(principal, id, 'run.read');
        allow(principal, 'run.start', { agent: session.agent });
        const mediaType = c.req.header('content-type');
        if (!mediaType) {
          throw new ApiProblem(
            415,
            'unsupported_media_type',
            'Unsupported media type',
            "an artifact needs its media type: send it as Content-Type (e.g. 'text/csv' or 'application/pdf')",
          );
        }
        const labels = (query.labels ?? '')
          .split(',')
          .map((label) => label.trim())
          .filter((label) => label !== '');
        const bad = labels.find((label) => !isValidToolName(label));
        if (bad !== undefined) {
          throw new ApiProblem(
            400,
            'invalid_request',
            'Invalid request',
            `query.labels: ${JSON.stringify(bad)} is not a label`,
          );
        }
        const name = nameOf(c);
        const data = await readBytes(c, wardrik.artifacts.maxBytes, `artifact ${JSON.stringify(name)}`);
        const saved = await wardrik.artifacts.save(id, name, data, { mediaType, by: principal.name, labels });
        c.header(
          'location',
          `/v1/sessions/${encodeURIComponent(id)}/artifacts/${encodeURIComponent(name)}?version=${saved.version}`,
        );
        return c.json(saved, 201);
      },
    }),
    {
      method: 'delete',
      path: '/v1/sessions/:id/artifacts/:name',
      summary: 'Delete every version of an artifact',
      authenticated: true,
      success: { status: 204, description: 'Deleted.' },
      problems: { 404: 'No such session or artifact.' },
      handle: async ({ c, principal }) => {
        const id = c.req.param('id') ?? '';
        await sessionFor(principal, id, 'run.cancel');
        await wardrik.artifacts.delete(id, nameOf(c));
        return c.body(null, 204);
      },
    },
  ];
}
