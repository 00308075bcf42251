/*
 * What a PromQL expression reads, for the ops test (test/telemetry-ops.test.ts): the series
 * selectors (metric name and label matchers) and the label names it groups or matches by. A small
 * tokenizer, not a full parser: enough for the expressions of ops/ (their syntax is checked by
 * promtool; this finds the names in them).
 */

/** A label matcher of a selector: `label op "value"`. */
export interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

/** A series selector: `metric{matchers}`. */
export interface Selector {
  readonly metric: string;
  readonly matchers: readonly Matcher[];
}

/** What an expression reads: its selectors, and the labels of its `by`, `without`, `on`, `ignoring`, `group_*` lists. */
export interface ExpressionNames {
  readonly selectors: readonly Selector[];
  readonly groupingLabels: readonly string[];
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
  'atan2',
]);
const LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/** Aggregation operators: `sum by (agent) (…)` names no series. */
const AGGREGATIONS = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
  'limitk',
  'limit_ratio',
]);

type Token =
  | { readonly kind: 'name'; readonly text: string }
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'punct'; readonly text: string }
  | { readonly kind: 'number'; readonly text: string };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const rest = expression.slice(index);
    const space = /^(\s+|#[^\n]*)/.exec(rest);
    if (space) {
      index += space[0].length;
      continue;
    }
    if (rest[0] === '[') {
      // A range or subquery duration: `[5m]`, `[$__rate_interval]`, `[1h:5m]`.
      const end = rest.indexOf(']');
      index += end + 1;
      continue;
    }
    const string = /^("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)/.exec(rest);
    if (string) {
      tokens.push({ kind: 'string', text: string[0].slice(1, -1) });
      index += string[0].length;
      continue;
    }
    const number = /^(\d+(?:\.\d+)?(?:e[+-]?\d+)?)/i.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', text: number[0] });
      index += number[0].length;
      continue;
    }
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', text: name[0] });
      index += name[0].length;
      continue;
    }
    const punct = /^(=~|!~|!=|==|>=|<=|[{}(),=<>+\-*/%^])/.exec(rest);
    if (!punct) throw new Error(`cannot read ${JSON.stringify(rest.slice(0, 20))} in ${expression}`);
    tokens.push({ kind: 'punct', text: punct[0] });
    index += punct[0].length;
  }
  return tokens;
}

/**
 * The selectors and grouping labels of a PromQL expression.
 *
 * @example
 * ```ts
 * namesOf('sum by (agent) (rate(wardrik_calls_total{outcome="error"}[5m]))')
 * // { selectors: [{ metric: 'wardrik_calls_total', matchers: [{ label: 'outcome', op: '=', value: 'error' }] }], groupingLabels: ['agent'] }
 * ```
 */
export function namesOf(expression: string): ExpressionNames {
  const tokens = tokenize(expression);
  const selectors: Selector[] = [];
  const groupingLabels: string[] = [];
  let index = 0;
  const at = (offset = 0) => tokens[index + offset];
  while (index < tokens.length) {
    const token = at() as Token;
    if (token.kind === 'name' && LIST_KEYWORDS.has(token.text) && at(1)?.text === '(') {
      index += 2;
      while (at() && at()?.text !== ')') {
        const label = at() as Token;
        if (label.kind === 'name') groupingLabels.push(label.text);
        index += 1;
      }
      index += 1;
      continue;
    }
    if (token.kind === 'name' && token.text === 'offset') {
      // A duration: `offset 1h`, `offset 1h30m`.
      index += 1;
      while (at()?.kind === 'number' && at(1)?.kind === 'name') index += 2;
      continue;
    }
    if (token.kind === 'name' && !KEYWORDS.has(token.text) && !AGGREGATIONS.has(token.text) && at(1)?.text !== '(') {
      const matchers: Matcher[] = [];
      index += 1;
      if (at()?.text === '{') {
        index += 1;
        while (at() && at()?.text !== '}') {
          const label = at() as Token;
          const op = at(1)?.text as Matcher['op'];
          const value = at(2);
          if (label.kind !== 'name' || !['=', '!=', '=~', '!~'].includes(op) || value?.kind !== 'string') {
            throw new Error(`cannot read the matchers of ${token.text} in ${expression}`);
          }
          matchers.push({ label: label.text, op, value: value.text });
          index += 3;
          if (at()?.text === ',') index += 1;
        }
        index += 1;
      }
      selectors.push({ metric: token.text, matchers });
      continue;
    }
    index += 1;
  }
  return { selectors, groupingLabels };
}
