import { type Annotations, type Arguments, type Label, OUTSIDE, type Tool } from '@wardrik/core';
import { modelToolName } from '../model/tool-name.js';
import { sourceFacts } from '../tool-sources/tool-source-facts.js';

/** What a policy decides for a call: run it, hold it for a person, or refuse it (the model is told why). */
export type Verdict = 'allow' | 'gate' | 'deny';

/** The facts a rule decides on. */
export interface CallFacts {
  /** The tool's name as the model called it. */
  readonly tool: string;
  readonly annotations: Readonly<Annotations>;
  /**
   * Where the tool comes from: the agent's own code (`local`: its tools and toolsets), workers,
   * or an MCP server used as a toolset (`mcp`). Workers' and MCP servers' annotations are theirs
   * to claim, so their tools are gated unless marked read-only.
   */
  readonly source: 'local' | 'workers' | 'mcp';
  /** For a worker tool: whether every worker offering it marks it read-only (an MCP tool: its server). */
  readonly readOnlyEverywhere: boolean;
  readonly arguments: Arguments;
  /** The labels the run carries. */
  readonly labels: readonly Label[];
  readonly agent: string;
  readonly principal: string;
}

/**
 * One rule: when `when` holds, `verdict` decides, and `name` is journaled with the decision.
 *
 * @example
 * ```ts
 * const noBigRefunds: PolicyRule = {
 *   name: 'no-refunds-over-1000',
 *   when: (call) => call.tool === 'refund' && Number(call.arguments.amount) > 1000,
 *   verdict: 'deny',
 *   reason: 'refunds over 1000 go through finance',
 * }
 * ```
 */
export interface PolicyRule {
  readonly name: string;
  readonly when: (call: CallFacts) => boolean;
  readonly verdict: Verdict;
  /** What the person (gate) or the model (deny) is told. Default: the rule's name. */
  readonly reason?: string | ((call: CallFacts) => string);
}

/**
 * A rule for the calls of one tool, whose `when` and `reason` get the call's arguments typed from
 * the tool's schema (they were checked against it before any rule is asked).
 *
 * @example
 * ```ts
 * const refund = tool({ name: 'refund', description: '…', schema: { amount: { type: 'number', required: true } }, run })
 * const bigRefunds = ruleFor(refund, {
 *   name: 'refunds-over-1000',
 *   when: (call) => call.arguments.amount > 1000, // amount: number
 *   verdict: 'gate',
 *   reason: (call) => `a refund of ${call.arguments.amount} needs finance`,
 * })
 * defineAgent({ ..., tools: [refund], policy: { rules: [bigRefunds] } })
 * ```
 */
export function ruleFor<Args>(
  tool: Tool<Args>,
  rule: {
    readonly name: string;
    readonly when: (call: CallFacts & { readonly arguments: Args }) => boolean;
    readonly verdict: Verdict;
    readonly reason?: string | ((call: CallFacts & { readonly arguments: Args }) => string);
  },
): PolicyRule {
  const name = modelToolName(tool.name);
  const reason = rule.reason;
  return {
    name: rule.name,
    when: (call) => call.tool === name && rule.when(call as CallFacts & { readonly arguments: Args }),
    verdict: rule.verdict,
    ...(reason === undefined
      ? {}
      : {
          reason:
            typeof reason === 'string'
              ? reason
              : (call: CallFacts) => reason(call as CallFacts & { readonly arguments: Args }),
        }),
  };
}

/**
 * Which calls run on their own. Rules are tried in order, agent rules before server-wide ones;
 * the first that matches decides. When none does, the default rules gate a call:
 * `worker-not-read-only`, `outside-not-read-only`, `destructive` (and, with `exfiltration`,
 * `open-world-after-outside` before them). Otherwise it is allowed. With `provenance`, a call
 * held only by the rules about outside text is allowed (`from-the-user`) when its arguments come
 * from the user.
 *
 * @example
 * ```ts
 * defineAgent({ ..., policy: { exfiltration: true, rules: [noBigRefunds] } })
 * ```
 */
export interface Policy {
  readonly rules?: readonly PolicyRule[];
  /**
   * Also gate open-world tools, read-only ones included, once the run carries `outside`: a
   * fetched URL can carry private data out. Default false.
   */
  readonly exfiltration?: boolean;
  /**
   * Let a call pass the gates that hold it only because the run read outside text
   * (`outside-not-read-only`, `open-world-after-outside`) when every value it would send comes
   * from the user: each string occurs, as written and not inside a longer word, in the run's input
   * (the user's message; a child run's input does not count), each number is a number written
   * there; a boolean never passes; keys must be declared by the tool's schema. Other gates
   * (workers, MCP servers, destructive tools) still hold. The call is journaled with the rule
   * `from-the-user`. Default false. See the labels and gates page of the docs for exactly what counts.
   */
  readonly provenance?: boolean;
}

/** A policy's decision, with the rule that made it. */
export interface Decision {
  readonly verdict: Verdict;
  readonly rule: string;
  readonly reason: string;
}

interface DefaultRule {
  readonly name: string;
  readonly when: (call: CallFacts) => boolean;
  readonly reason: (call: CallFacts) => string;
  /** Held only because the run read outside text: the `provenance` option can let it pass. */
  readonly outsideOnly?: boolean;
}

/** What `decide` may ask about a call beyond its facts (computed only when needed). */
export interface DecideOptions {
  /** Whether every value of the call's arguments comes from the user (see `Policy.provenance`). */
  readonly fromTheUser?: () => boolean;
}

const exfiltrationRule: DefaultRule = {
  name: 'open-world-after-outside',
  when: (call) => call.annotations.openWorld === true && call.labels.includes(OUTSIDE),
  reason: (call) => `${call.tool} reaches outside and the run has read text from outside: it could carry data out`,
  outsideOnly: true,
};

const defaultRules: readonly DefaultRule[] = [
  {
    name: 'worker-not-read-only',
    when: (call) => call.source === 'workers' && !call.readOnlyEverywhere,
    reason: (call) => `${call.tool} is offered by workers and not every worker offering it marks it read-only`,
  },
  {
    name: 'mcp-not-read-only',
    when: (call) => call.source === 'mcp' && !call.readOnlyEverywhere,
    reason: (call) => `${call.tool} is offered by an MCP server that does not mark it read-only`,
  },
  {
    name: 'outside-not-read-only',
    when: (call) => call.source === 'local' && call.annotations.readOnly !== true && call.labels.includes(OUTSIDE),
    reason: (call) => `${call.tool} is not read-only and the run has read text from outside (labelled ${OUTSIDE})`,
    outsideOnly: true,
  },
  {
    name: 'destructive',
    when: (call) => call.source === 'local' && call.annotations.destructive === true,
    reason: (call) => `${call.tool} is destructive`,
  },
];

const allowed: Decision = Object.freeze({ verdict: 'allow', rule: 'default-allow', reason: 'no rule holds this call' });

/** The facts of a call to `tool`. */
export function callFacts(
  tool: Tool<Arguments>,
  args: unknown,
  context: { labels: readonly Label[]; agent: string; principal: string },
): CallFacts {
  // What the tool's source says of it (workers, an MCP server); a local tool's annotations are the facts.
  const offered = sourceFacts(tool);
  return {
    tool: tool.name,
    annotations: tool.annotations,
    source: offered ? offered.source : 'local',
    readOnlyEverywhere: offered ? offered.readOnlyEverywhere : tool.annotations.readOnly === true,
    arguments: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Arguments) : {},
    labels: context.labels,
    agent: context.agent,
    principal: context.principal,
  };
}

/**
 * Decides a call: the first matching rule of `policies` (in order), else the defaults. A rule
 * that throws gates the call (a broken rule must never let a call through).
 */
export function decide(
  call: CallFacts,
  policies: ReadonlyArray<Policy | undefined>,
  options: DecideOptions = {},
): Decision {
  for (const policy of policies) {
    for (const rule of policy?.rules ?? []) {
      let holds: boolean;
      try {
        holds = rule.when(call);
      } catch (thrown) {
        return {
          verdict: 'gate',
          rule: rule.name,
          reason: `rule ${rule.name} failed (${String(thrown)}); a person decides`,
        };
      }
      if (!holds) continue;
      const reason = typeof rule.reason === 'function' ? rule.reason(call) : (rule.reason ?? rule.name);
      return { verdict: rule.verdict, rule: rule.name, reason };
    }
  }
  const rules = policies.some((policy) => policy?.exfiltration) ? [exfiltrationRule, ...defaultRules] : defaultRules;
  const provenance = policies.some((policy) => policy?.provenance) ? options.fromTheUser : undefined;
  let passed: string | undefined;
  for (const rule of rules) {
    if (!rule.when(call)) continue;
    if (rule.outsideOnly && provenance && (passed !== undefined || fromTheUser(provenance))) {
      passed ??= rule.name;
      continue;
    }
    return { verdict: 'gate', rule: rule.name, reason: rule.reason(call) };
  }
  if (passed !== undefined) {
    return {
      verdict: 'allow',
      rule: 'from-the-user',
      reason: `every value ${call.tool} would send is written in the user's message (${passed} passed)`,
    };
  }
  return allowed;
}

/** A provenance check that throws decides nothing: the call stays held. */
function fromTheUser(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** Checks a policy's shape, naming what is wrong. */
export function checkPolicy(policy: unknown, where: string): Policy {
  if (policy === undefined) return {};
  if (typeof policy !== 'object' || policy === null)
    throw new TypeError(`${where}: expected an object such as { rules: [...] }`);
  const { rules, exfiltration, provenance } = policy as Policy;
  if (exfiltration !== undefined && typeof exfiltration !== 'boolean')
    throw new TypeError(`${where}.exfiltration: expected a boolean`);
  if (provenance !== undefined && typeof provenance !== 'boolean')
    throw new TypeError(`${where}.provenance: expected a boolean`);
  if (rules !== undefined && !Array.isArray(rules)) throw new TypeError(`${where}.rules: expected an array of rules`);
  for (const [index, rule] of (rules ?? []).entries()) {
    const at = `${where}.rules[${index}]`;
    if (typeof rule?.name !== 'string' || rule.name === '')
      throw new TypeError(`${at}.name: expected a non-empty string`);
    if (typeof rule.when !== 'function') throw new TypeError(`${at}.when: expected a function of the call`);
    if (!['allow', 'gate', 'deny'].includes(rule.verdict)) {
      throw new TypeError(`${at}.verdict: expected 'allow', 'gate' or 'deny'`);
    }
  }
  return policy as Policy;
}
