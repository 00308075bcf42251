import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { ArtifactInfo } from '@wardrik/core';
import { CliError, EXIT, usageError } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import {
  COMMON_HELP,
  type Command,
  commonOptions,
  flag,
  numberOption,
  positionals,
  SERVER_HELP,
  serverOptions,
  stringOption,
} from '../command.js';
import { resolveConnection } from '../connection.js';
import { print, printJson, table, when } from '../output.js';

/** Media types guessed from a file's extension, for `put` without `--type`. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.zip': 'application/zip',
};

/** `wardrik artifacts`: a session's artifacts — list, versions, get, put, delete. */
export const artifacts: Command = {
  name: 'artifacts',
  summary: "list, download, upload and delete a session's artifacts (versioned files)",
  usage: `Usage: wardrik artifacts SESSION
       wardrik artifacts versions SESSION NAME
       wardrik artifacts get SESSION NAME [--version N] [--out FILE]
       wardrik artifacts put SESSION FILE [--name NAME] [--type MEDIA_TYPE] [--labels L,…]
       wardrik artifacts delete SESSION NAME

Artifacts are files kept with a session (NAME) or with its principal in every session of the
agent's app (user:NAME); each save is a new version. They carry labels like answers do: one
saved by a run that read text from outside is labelled outside, and so is the run that loads it.

SESSION         lists the latest version of each artifact: name, version, type, size, labels
versions        lists every version of NAME
get             downloads NAME (the latest, or --version N) to --out FILE (- for stdout;
                default: a new file named like the artifact in this directory)
put             uploads FILE as the next version of --name (default: the file's name), with its
                media type from --type or its extension; --labels outside marks a file from a stranger
delete          deletes every version of NAME

Options:
  --version N      which version (get)
  --out FILE       where get writes (- for stdout)
  --name NAME      the artifact's name (put)
  --type TYPE      its media type, e.g. text/csv (put)
  --labels L,…     labels it carries (put)
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    version: { type: 'string' },
    out: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string' },
    labels: { type: 'string' },
  },
  async run(parsed) {
    const [first] = parsed.positionals;
    const client = () => new WardrikClient(resolveConnection(artifacts, parsed));
    const base = (session: string) => `/v1/sessions/${encodeURIComponent(session)}/artifacts`;
    const json = flag(parsed, 'json');
    switch (first) {
      case 'versions': {
        const [, session, name] = positionals(artifacts, parsed, ['versions', 'SESSION', 'NAME']) as [
          string,
          string,
          string,
        ];
        const { versions } = await client().request<{ versions: ArtifactInfo[] }>(
          'GET',
          `${base(session)}/${encodeURIComponent(name)}/versions`,
        );
        if (json) printJson(versions);
        else print(listing(versions));
        return EXIT.ok;
      }
      case 'get': {
        const [, session, name] = positionals(artifacts, parsed, ['get', 'SESSION', 'NAME']) as [
          string,
          string,
          string,
        ];
        const version = numberOption(
          artifacts,
          parsed,
          'version',
          'a version number (1, 2, …)',
          (value) => Number.isInteger(value) && value >= 1,
        );
        const response = await client().send(
          `${base(session)}/${encodeURIComponent(name)}${version === undefined ? '' : `?version=${version}`}`,
          { method: 'GET', headers: { ...authorization(client()) } },
        );
        const bytes = new Uint8Array(await response.arrayBuffer());
        const out = stringOption(parsed, 'out') ?? basename(name.startsWith('user:') ? name.slice(5) : name);
        if (out === '-') {
          process.stdout.write(bytes);
          return EXIT.ok;
        }
        if (stringOption(parsed, 'out') === undefined && existsSync(out)) {
          throw new CliError(EXIT.failed, `${out} exists already: name another file with --out FILE (or - for stdout)`);
        }
        writeFileSync(out, bytes);
        const info = {
          name,
          version: Number(response.headers.get('wardrik-artifact-version')),
          mediaType: response.headers.get('content-type') ?? '',
          size: bytes.length,
          labels: (response.headers.get('wardrik-labels') ?? '').split(',').filter((label) => label !== ''),
          file: out,
        };
        if (json) printJson(info);
        else {
          print(`Wrote ${name} version ${info.version} (${info.mediaType}, ${info.size} bytes) to ${out}.`);
          if (info.labels.length > 0) print(`It carries: ${info.labels.join(', ')}.`);
        }
        return EXIT.ok;
      }
      case 'put': {
        const [, session, file] = positionals(artifacts, parsed, ['put', 'SESSION', 'FILE']) as [
          string,
          string,
          string,
        ];
        let data: Buffer;
        try {
          data = readFileSync(file);
        } catch (cause) {
          throw new CliError(EXIT.failed, `cannot read ${file}: ${(cause as Error).message}`, { cause });
        }
        const name = stringOption(parsed, 'name') ?? basename(file);
        const type = stringOption(parsed, 'type') ?? MEDIA_TYPES[extname(file).toLowerCase()];
        if (type === undefined) {
          throw usageError(
            `cannot tell the media type of ${file} from its extension: give --type (e.g. text/plain)`,
            artifacts.usage,
          );
        }
        const labels = stringOption(parsed, 'labels');
        const connected = client();
        const response = await connected.send(
          `${base(session)}/${encodeURIComponent(name)}${labels === undefined ? '' : `?labels=${encodeURIComponent(labels)}`}`,
          { method: 'POST', headers: { ...authorization(connected), 'content-type': type }, body: data },
        );
        const saved = (await response.json()) as ArtifactInfo;
        if (json) printJson(saved);
        else print(`Saved ${saved.name} version ${saved.version} (${saved.mediaType}, ${saved.size} bytes).`);
        return EXIT.ok;
      }
      case 'delete': {
        const [, session, name] = positionals(artifacts, parsed, ['delete', 'SESSION', 'NAME']) as [
          string,
          string,
          string,
        ];
        await client().request('DELETE', `${base(session)}/${encodeURIComponent(name)}`);
        if (json) printJson({ deleted: name });
        else print(`Deleted every version of ${name}.`);
        return EXIT.ok;
      }
      default: {
        const [session] = positionals(artifacts, parsed, ['SESSION']) as [string];
        const { artifacts: rows } = await client().request<{ artifacts: ArtifactInfo[] }>('GET', base(session));
        if (json) printJson(rows);
        else print(rows.length === 0 ? `Session ${session} has no artifacts.` : listing(rows));
        return EXIT.ok;
      }
    }
  },
};

function listing(rows: readonly ArtifactInfo[]): string {
  return table(
    ['NAME', 'VERSION', 'TYPE', 'SIZE', 'LABELS', 'SAVED', 'BY'],
    rows.map((row) => [
      row.name,
      String(row.version),
      row.mediaType,
      String(row.size),
      row.labels.join(',') || '-',
      when(row.savedAt),
      row.savedBy,
    ]),
  );
}

function authorization(client: WardrikClient): Record<string, string> {
  const token = client.connection.token;
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}
