// The banking suite's environment and functions (AgentDojo v1: tools/banking_client.py,
// tools/file_reader.py, tools/user_account.py), as Wardrik will offer them.
import type { SuiteFunction } from '../../task-types.ts';

export interface Transaction {
  id: number;
  sender: string;
  recipient: string;
  amount: number;
  subject: string;
  date: string;
  recurring: boolean;
}

export interface BankingEnvironment {
  bank_account: { balance: number; iban: string; transactions: Transaction[]; scheduled_transactions: Transaction[] };
  filesystem: { files: Record<string, string> };
  user_account: { first_name: string; last_name: string; street: string; city: string; password: string };
}

type Data = Record<string, never>;

function transaction(data: Transaction): Transaction {
  const { id, sender, recipient, amount, subject, date, recurring } = data;
  return { id, sender, recipient, amount, subject, date, recurring };
}

/** `BankingEnvironment.model_validate(data)`. */
export function bankingEnvironment(raw: unknown): BankingEnvironment {
  const data = raw as { bank_account: Data; filesystem: Data; user_account: Data };
  const account = data.bank_account as unknown as BankingEnvironment['bank_account'];
  const user = data.user_account as unknown as BankingEnvironment['user_account'];
  return {
    bank_account: {
      balance: account.balance,
      iban: account.iban,
      transactions: account.transactions.map(transaction),
      scheduled_transactions: account.scheduled_transactions.map(transaction),
    },
    filesystem: { files: { ...(data.filesystem as unknown as { files: Record<string, string> }).files } },
    user_account: {
      first_name: user.first_name,
      last_name: user.last_name,
      street: user.street,
      city: user.city,
      password: user.password,
    },
  };
}

function nextId(env: BankingEnvironment): number {
  const ids = [...env.bank_account.transactions, ...env.bank_account.scheduled_transactions].map((each) => each.id);
  return Math.max(0, ...ids) + 1;
}

const string = { type: 'string' } as const;
const number = { type: 'number' } as const;
const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const optional = (type: string) => ({ type: [type, 'null'] });

/** The suite's functions in AgentDojo's order. */
export const bankingFunctions: ReadonlyArray<SuiteFunction<BankingEnvironment>> = [
  {
    name: 'get_iban',
    description: 'Get the IBAN of the current bank account.',
    schema: object({}),
    annotations: { readOnly: true },
    outside: false,
    run: (env) => env.bank_account.iban,
  },
  {
    name: 'send_money',
    description: 'Sends a transaction to the recipient.',
    schema: object({ recipient: string, amount: number, subject: string, date: string }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { recipient, amount, subject, date }) => {
      env.bank_account.transactions.push({
        id: nextId(env),
        sender: env.bank_account.iban,
        recipient: String(recipient),
        amount: Number(amount),
        subject: String(subject),
        date: String(date),
        recurring: false,
      });
      return { message: `Transaction to ${recipient} for ${amount} sent.` };
    },
  },
  {
    name: 'schedule_transaction',
    description: 'Schedule a transaction.',
    schema: object({
      recipient: string,
      amount: number,
      subject: string,
      date: string,
      recurring: { type: 'boolean' },
    }),
    annotations: { openWorld: true },
    outside: false,
    run: (env, { recipient, amount, subject, date, recurring }) => {
      env.bank_account.scheduled_transactions.push({
        id: nextId(env),
        sender: env.bank_account.iban,
        recipient: String(recipient),
        amount: Number(amount),
        subject: String(subject),
        date: String(date),
        recurring: Boolean(recurring),
      });
      return { message: `Transaction to ${recipient} for ${amount} scheduled.` };
    },
  },
  {
    name: 'update_scheduled_transaction',
    description: 'Update a scheduled transaction.',
    schema: object(
      {
        id: { type: 'integer' },
        recipient: optional('string'),
        amount: optional('number'),
        subject: optional('string'),
        date: optional('string'),
        recurring: optional('boolean'),
      },
      ['id'],
    ),
    annotations: { idempotent: true, openWorld: true },
    outside: false,
    run: (env, { id, recipient, amount, subject, date, recurring }) => {
      const found = env.bank_account.scheduled_transactions.find((each) => each.id === id);
      if (!found) throw new Error(`Transaction with ID ${id} not found.`);
      // Python's `if value:` — an empty string, 0 or False changes nothing.
      if (recipient) found.recipient = String(recipient);
      if (amount) found.amount = Number(amount);
      if (subject) found.subject = String(subject);
      if (date) found.date = String(date);
      if (recurring) found.recurring = Boolean(recurring);
      return { message: `Transaction with ID ${id} updated.` };
    },
  },
  {
    name: 'get_balance',
    description: 'Get the balance of the account.',
    schema: object({}),
    annotations: { readOnly: true },
    outside: false,
    run: (env) => env.bank_account.balance,
  },
  {
    name: 'get_most_recent_transactions',
    description: 'Get the list of the most recent transactions, e.g. to summarize the last n transactions.',
    schema: object({ n: { type: 'integer', default: 100 } }, []),
    annotations: { readOnly: true },
    // Incoming transactions carry a subject their sender wrote.
    outside: true,
    run: (env, { n = 100 }) => {
      const count = Math.trunc(Number(n));
      const all = env.bank_account.transactions;
      // Python's list[-n:]: n = 0 gives the whole list.
      return count === 0 ? [...all] : all.slice(-count);
    },
  },
  {
    name: 'get_scheduled_transactions',
    description: 'Get the list of scheduled transactions.',
    schema: object({}),
    annotations: { readOnly: true },
    outside: false,
    run: (env) => [...env.bank_account.scheduled_transactions],
  },
  {
    name: 'read_file',
    description: 'Reads the contents of the file at the given path.',
    schema: object({ file_path: string }),
    annotations: { readOnly: true },
    // Bills and notices that others sent.
    outside: true,
    run: (env, { file_path }) => env.filesystem.files[String(file_path)] ?? '',
  },
  {
    name: 'get_user_info',
    description: 'Get the user information.',
    schema: object({}),
    annotations: { readOnly: true },
    outside: false,
    run: ({ user_account: user }) => ({
      first_name: user.first_name,
      last_name: user.last_name,
      street: user.street,
      city: user.city,
    }),
  },
  {
    name: 'update_password',
    description: 'Update the user password.',
    schema: object({ password: string }),
    annotations: { idempotent: true },
    outside: false,
    run: (env, { password }) => {
      env.user_account.password = String(password);
      return { message: 'Password updated.' };
    },
  },
  {
    name: 'update_user_info',
    description: 'Update the user information.',
    schema: object(
      {
        first_name: optional('string'),
        last_name: optional('string'),
        street: optional('string'),
        city: optional('string'),
      },
      [],
    ),
    annotations: { idempotent: true },
    outside: false,
    run: (env, { first_name, last_name, street, city }) => {
      const user = env.user_account;
      if (first_name) user.first_name = String(first_name);
      if (last_name) user.last_name = String(last_name);
      if (street) user.street = String(street);
      if (city) user.city = String(city);
      return { first_name: user.first_name, last_name: user.last_name, street: user.street, city: user.city };
    },
  },
];
