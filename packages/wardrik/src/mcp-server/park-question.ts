import { type ElicitRequestFormParams, ElicitRequestFormParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import { hasInvisible, type JsonSchema, revealInvisible } from '@wardrik/core';
import type { ParkKind } from '../journal/records.js';
import type { ParkRow } from '../store/store.js';

/** The park kinds an MCP caller is asked about; the others (`in_doubt`, `external`) wait for people or work. */
export const ASKED_KINDS: readonly ParkKind[] = ['approval', 'tool', 'budget'];

/** What `_meta` key an elicitation names its park under. */
export const PARK_META = 'wardrik/park';

/** One field of an elicitation form (MCP allows only flat primitive fields). */
type FormField = NonNullable<ElicitRequestFormParams['requestedSchema']['properties']>[string];

/** A question to an MCP client about a park: the elicitation to send, and what each field edits. */
export interface ParkQuestion {
  readonly params: ElicitRequestFormParams;
  /** For an approval: the call's arguments offered for editing, by field name, as they are now. */
  readonly editable: Readonly<Record<string, unknown>>;
  /**
   * For a `tool` park whose tool named its own form (`details.requestedSchema`): the reply's
   * content, as a whole, is the call's answer. Otherwise the form's `answer` field is.
   */
  readonly toolForm: boolean;
}

/** What accept, decline and cancel do, per kind, as the person is told. */
const ACTIONS: Readonly<Record<string, string>> = {
  approval:
    'Accept runs the call (with the values below, if you change them). Decline refuses it: the model is told. Cancel stops the run.',
  tool: "Accept gives the model your answer in the call's place. Decline gives it an error instead. Cancel stops the run.",
  budget: 'Accept raises the limits to those you give below (at least one). Decline or Cancel stops the run.',
};

/**
 * The elicitation that asks an MCP client about `park`: the call (its arguments as JSON, with
 * invisible characters shown as `⟨U+…⟩`), why the run waits, and as a form what may be given —
 * for an approval the call's top-level arguments that are plain strings, numbers or booleans
 * (those holding invisible characters are shown, not offered: nobody can see what they edit);
 * for a `tool` park the answer — or, when the tool parked with `details: { requestedSchema }` (an
 * MCP elicitation form: flat fields of strings, numbers, booleans and enums), that form, whose
 * content is the answer; for a budget the new limits. `inputSchema` is the tool's, when
 * known: its types, enums and bounds shape the fields.
 *
 * @example
 * ```ts
 * const { params } = parkQuestion(park, { agent: 'support', inputSchema })
 * const reply = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema)
 * ```
 */
export function parkQuestion(
  park: ParkRow,
  run: { readonly agent: string; readonly inputSchema?: JsonSchema },
): ParkQuestion {
  const lines = [`Agent ${run.agent}'s run ${park.runId} waits for you (${park.kind}).`];
  lines.push(`Why: ${revealInvisible(park.reason)}`);
  if (park.call) {
    lines.push(`Call: ${revealInvisible(park.call.name)}`);
    lines.push(revealInvisible(JSON.stringify(park.call.arguments, null, 2) ?? 'null'));
  }
  if (park.labels.length) lines.push(`The run carries: ${park.labels.map(revealInvisible).join(', ')}.`);
  if (park.call && hasInvisible(park.call.arguments)) {
    lines.push(
      "⚠ The call holds invisible characters, shown above as ⟨U+…⟩; fields holding them can't be edited here.",
    );
  }
  lines.push(ACTIONS[park.kind] ?? '');
  const form = formOf(park, run.inputSchema);
  return {
    params: {
      mode: 'form',
      message: lines.join('\n'),
      requestedSchema: {
        type: 'object',
        properties: form.properties,
        ...(form.required.length ? { required: form.required } : {}),
      },
      _meta: { [PARK_META]: { id: park.id, runId: park.runId, kind: park.kind, callHash: park.callHash } },
    },
    editable: form.editable,
    toolForm: form.toolForm === true,
  };
}

interface Form {
  readonly properties: Record<string, FormField>;
  readonly required: string[];
  readonly editable: Record<string, unknown>;
  readonly toolForm?: boolean;
}

/**
 * The form a tool parked with (`park(reason, { details: { requestedSchema } })`), when it is one
 * an MCP client can show (MCP's elicitation form schema); otherwise undefined.
 *
 * @example
 * ```ts
 * run: () => park('Which plan?', { details: { requestedSchema: { type: 'object', properties: { plan: { type: 'string', enum: ['basic', 'pro'] } } } } })
 * ```
 */
export function toolForm(details: unknown): ElicitRequestFormParams['requestedSchema'] | undefined {
  if (typeof details !== 'object' || details === null || !('requestedSchema' in details)) return undefined;
  const parsed = ElicitRequestFormParamsSchema.safeParse({ message: '', requestedSchema: details.requestedSchema });
  return parsed.success ? parsed.data.requestedSchema : undefined;
}

function formOf(park: ParkRow, inputSchema: JsonSchema | undefined): Form {
  switch (park.kind) {
    case 'tool': {
      const own = toolForm(park.details);
      if (own) return { properties: own.properties, required: [...(own.required ?? [])], editable: {}, toolForm: true };
      return {
        properties: {
          answer: { type: 'string', title: 'Answer', description: "What the model gets in the call's place." },
        },
        required: ['answer'],
        editable: {},
      };
    }
    case 'budget':
      return {
        properties: {
          usd: { type: 'number', title: 'USD', description: 'New limit on what the run may cost, in USD.', minimum: 0 },
          tokens: {
            type: 'integer',
            title: 'Tokens',
            description: 'New limit on input plus output tokens.',
            minimum: 1,
          },
          steps: { type: 'integer', title: 'Steps', description: 'New limit on model steps.', minimum: 1 },
        },
        required: [],
        editable: {},
      };
    default:
      return argumentsForm(park.call?.arguments, inputSchema);
  }
}

/** The call's top-level primitive arguments as fields, each defaulting to its value now. */
function argumentsForm(args: unknown, inputSchema: JsonSchema | undefined): Form {
  const properties: Record<string, FormField> = {};
  const editable: Record<string, unknown> = {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { properties, required: [], editable };
  const declared = (inputSchema?.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, value] of Object.entries(args)) {
    if (hasInvisible(name) || hasInvisible(value)) continue;
    const field = fieldFor(value, Object.hasOwn(declared, name) ? declared[name] : undefined);
    if (field === undefined) continue;
    properties[name] = { ...field, title: name };
    editable[name] = value;
  }
  return { properties, required: [], editable };
}

/** A form field holding `value`, shaped by its declared schema where that is a plain one. */
function fieldFor(value: unknown, declared: JsonSchema | undefined): FormField | undefined {
  const description = typeof declared?.description === 'string' ? { description: declared.description } : {};
  if (typeof value === 'boolean') return { type: 'boolean', default: value, ...description };
  if (typeof value === 'number' && Number.isFinite(value)) {
    const integer = declared?.type === 'integer';
    return {
      type: integer ? 'integer' : 'number',
      default: value,
      ...description,
      ...(typeof declared?.minimum === 'number' ? { minimum: declared.minimum } : {}),
      ...(typeof declared?.maximum === 'number' ? { maximum: declared.maximum } : {}),
    };
  }
  if (typeof value !== 'string') return undefined;
  const choices = declared?.enum;
  if (Array.isArray(choices) && choices.every((choice) => typeof choice === 'string') && choices.includes(value)) {
    return { type: 'string', enum: choices as string[], default: value, ...description };
  }
  return {
    type: 'string',
    default: value,
    ...description,
    ...(typeof declared?.minLength === 'number' ? { minLength: declared.minLength } : {}),
    ...(typeof declared?.maxLength === 'number' ? { maxLength: declared.maxLength } : {}),
  };
}
