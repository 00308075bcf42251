import type { MemoryMatch } from '@wardrik/core';
import { EXIT, usageError } from '../cli-error.js';
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
import { clip, print, printJson, table, when } from '../output.js';

/** `wardrik memory add|search`: adds a session to memory, searches memories. */
export const memory: Command = {
  name: 'memory',
  summary: 'add a session to memory; search memories of earlier sessions',
  usage: `Usage: wardrik memory add SESSION
       wardrik memory search AGENT WORDS… [--principal ID] [--limit N]

Memory keeps what was said in a principal's sessions for later runs of the same app; agents
search it with the load_memory tool. Each memory keeps the labels its run carried when it was
said (outside: it may hold text from outside).

add     adds what was said in SESSION (again: only what is new)
search  the memories best matching WORDS in AGENT's app: yours, or --principal's (operators, admins)

Options:
  --principal ID  whose memories (search; default: yours)
  --limit N       how many (search; 1–50, default 5)
${SERVER_HELP}
${COMMON_HELP}`,
  options: { ...commonOptions, ...serverOptions, principal: { type: 'string' }, limit: { type: 'string' } },
  async run(parsed) {
    const [action] = parsed.positionals;
    const client = () => new WardrikClient(resolveConnection(memory, parsed));
    if (action === 'add') {
      const [, session] = positionals(memory, parsed, ['add', 'SESSION']) as [string, string];
      const result = await client().request<{ added: number }>(
        'POST',
        `/v1/sessions/${encodeURIComponent(session)}/memory`,
      );
      if (flag(parsed, 'json')) printJson(result);
      else print(`Added ${result.added} new ${result.added === 1 ? 'memory' : 'memories'} from session ${session}.`);
      return EXIT.ok;
    }
    if (action !== 'search') throw usageError('expected add or search', memory.usage);
    const [, agent, ...words] = parsed.positionals;
    if (agent === undefined || words.length === 0) throw usageError('missing AGENT and WORDS', memory.usage);
    const limit = numberOption(
      memory,
      parsed,
      'limit',
      'a whole number from 1 to 50',
      (value) => Number.isInteger(value) && value >= 1 && value <= 50,
    );
    const principal = stringOption(parsed, 'principal');
    const query = new URLSearchParams({ agent, query: words.join(' ') });
    if (principal !== undefined) query.set('principal', principal);
    if (limit !== undefined) query.set('limit', String(limit));
    const { memories } = await client().request<{ memories: MemoryMatch[] }>('GET', `/v1/memory?${query}`);
    if (flag(parsed, 'json')) {
      printJson(memories);
      return EXIT.ok;
    }
    if (memories.length === 0) {
      print('No memory matches.');
      return EXIT.ok;
    }
    print(
      table(
        ['SAID', 'BY', 'LABELS', 'SESSION', 'TEXT'],
        memories.map((each) => [
          when(each.at),
          each.role,
          each.labels.join(',') || '-',
          each.sessionId ?? '-',
          clip(each.text, 100),
        ]),
      ),
    );
    return EXIT.ok;
  },
};
