import type { WorkerInfo } from '../../workers/worker-hub.js';
import { EXIT } from '../cli-error.js';
import { WardrikClient } from '../client.js';
import { COMMON_HELP, type Command, commonOptions, flag, positionals, SERVER_HELP, serverOptions } from '../command.js';
import { resolveConnection } from '../connection.js';
import { clip, print, printJson, table, when } from '../output.js';

/** `wardrik workers`: the workers connected to the cluster, their node, tools and load. */
export const workers: Command = {
  name: 'workers',
  summary: 'list connected workers: node, principal, tools, tools left out, calls in flight',
  usage: `Usage: wardrik workers [options]

Lists the workers connected to the server and to every node sharing its store, oldest first:
the node each is connected to, the principal it acts as, when it connected, how many calls it
is running (LOAD; for a worker on another node, as that node last said), the tools it offers
(agents see them as workers__NAME) and the tools it listed that were left out, with why.

Options:
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions },
  async run(parsed) {
    positionals(workers, parsed, []);
    const client = new WardrikClient(resolveConnection(workers, parsed));
    const { workers: rows } = await client.request<{ workers: WorkerInfo[] }>('GET', '/v1/workers');
    if (flag(parsed, 'json')) {
      printJson(rows);
      return EXIT.ok;
    }
    if (rows.length === 0) {
      print('No workers are connected.');
      return EXIT.ok;
    }
    const sorted = [...rows].sort((a, b) => a.connectedAt - b.connectedAt);
    print(
      table(
        ['ID', 'NODE', 'PRINCIPAL', 'CONNECTED', 'LOAD', 'TOOLS'],
        sorted.map((worker) => [
          worker.id,
          clip(worker.node ?? '-', 40),
          worker.principal,
          when(worker.connectedAt),
          String(worker.inflight),
          worker.tools.length === 0 ? '-' : clip(worker.tools.map((name) => shownName(worker, name)).join(', '), 80),
        ]),
      ),
    );
    const rejected = sorted.flatMap((worker) => worker.rejected.map((tool) => ({ worker, tool })));
    if (rejected.length > 0) {
      print('\nLeft out (invalid tools):');
      print(
        table(
          ['ID', 'TOOL', 'WHY'],
          rejected.map(({ worker, tool }) => [worker.id, clip(tool.name, 40), clip(tool.reason, 100)]),
        ),
      );
    }
    return EXIT.ok;
  },
};

/** A tool's name, with the name the model sees when it is not simply `workers__NAME`. */
function shownName(worker: WorkerInfo, name: string): string {
  const modelName = worker.modelNames?.[name];
  return modelName === undefined || modelName === `workers__${name}` ? name : `${name} (model: ${modelName})`;
}
