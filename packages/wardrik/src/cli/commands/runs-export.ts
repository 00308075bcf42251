import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { type Command, type Parsed, positionals, stringOption } from '../command.js';
import { resolveConnection } from '../connection.js';

/**
 * `wardrik runs export RUN [--output FILE]`: writes a run's journal as JSON lines (the server's
 * `GET /v1/runs/{id}/export`) to stdout, or to FILE (refusing one that exists).
 */
export async function runsExport(command: Command, parsed: Parsed): Promise<number> {
  const [, runId] = positionals(command, parsed, ['export', 'RUN']) as [string, string];
  const output = stringOption(parsed, 'output');
  const client = new WardrikClient(resolveConnection(command, parsed));
  const response = await client.send(`/v1/runs/${encodeURIComponent(runId)}/export`, {
    headers: {
      ...(client.connection.token === undefined ? {} : { authorization: `Bearer ${client.connection.token}` }),
      accept: 'application/x-ndjson',
    },
  });
  if (!response.body) throw new CliError(EXIT.failed, `the export of run ${runId} has no body`);
  let target: NodeJS.WritableStream;
  if (output === undefined) {
    target = new Writable({
      write(chunk, _encoding, done) {
        process.stdout.write(chunk, done);
      },
    });
  } else {
    try {
      target = createWriteStream(output, { flags: 'wx', mode: 0o600 });
    } catch (cause) {
      throw new CliError(EXIT.failed, `cannot write ${output}: ${(cause as Error).message}`, { cause });
    }
  }
  try {
    await pipeline(response.body as unknown as NodeJS.ReadableStream, target);
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why = code === 'EEXIST' ? 'it exists (pick another name, or remove it first)' : (cause as Error).message;
    throw new CliError(EXIT.failed, `cannot write ${output ?? 'the export'}: ${why}`, { cause });
  }
  return EXIT.ok;
}
