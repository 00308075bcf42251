// Loads a suite's environment as AgentDojo does (task_suite.load_and_inject_default_environment):
// read environment.yaml resolving `!include`, write it back as YAML with every string double-quoted,
// fill the `{placeholder}`s with the injections (defaults from injection_vectors.yaml for the others,
// as Python's str.format does), and parse the result again. Because the filled text lands inside
// double-quoted YAML strings, it is read the way YAML reads such strings (escapes such as `\t` are
// turned into tabs, single line breaks fold into spaces), exactly as in the original.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

/** Where the suites' YAML data lives (copied from AgentDojo, MIT; see data/LICENSE). */
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'data');

const YAML_VERSION = { version: '1.1' } as const;

function includeTag(root: string) {
  return {
    tag: '!include',
    resolve: (value: string) => readYaml(join(root, value)),
  };
}

function readYaml(path: string): unknown {
  return YAML.parse(readFileSync(path, 'utf8'), { ...YAML_VERSION, customTags: [includeTag(dirname(path))] });
}

const texts = new Map<string, string>();

/** The environment text with every string double-quoted, as AgentDojo's `read_suite_file` dumps it (cached, as there). */
export function environmentText(suite: string): string {
  const cached = texts.get(suite);
  if (cached !== undefined) return cached;
  const data = readYaml(join(DATA_DIR, suite, 'environment.yaml'));
  const text = YAML.stringify(data, {
    ...YAML_VERSION,
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'QUOTE_DOUBLE',
    lineWidth: 0,
    doubleQuotedAsJSON: true,
    // PyYAML's dump sorts mapping keys: dict order after loading follows it.
    sortMapEntries: true,
  });
  texts.set(suite, text);
  return text;
}

/** Each injection vector's default text, as injection_vectors.yaml gives it. */
export function injectionDefaults(suite: string): Record<string, string> {
  const vectors = readYaml(join(DATA_DIR, suite, 'injection_vectors.yaml')) as Record<string, { default: string }>;
  return Object.fromEntries(Object.entries(vectors).map(([id, vector]) => [id, String(vector.default)]));
}

/**
 * Fills `{name}` placeholders as Python's `str.format(**values)` does (`{{` and `}}` are braces).
 * A raw line break in a value is followed by indentation so that the YAML stays well formed; YAML
 * drops a continuation line's leading spaces when it folds, so the value read back is the same as
 * PyYAML reads from the unindented text.
 */
export function formatPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  const lines = text.split('\n');
  return lines
    .map((line) => {
      const indent = ' '.repeat(line.length - line.trimStart().length + 4);
      return line.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
        if (match === '{{') return '{';
        if (match === '}}') return '}';
        const value = values[name as string];
        if (value === undefined) throw new Error(`the environment names a placeholder {${name}} that has no value`);
        return value.replaceAll('\n', `\n${indent}`);
      });
    })
    .join('\n');
}

/**
 * The suite's environment data with `injections` placed (other vectors keep their defaults).
 *
 * @example
 * ```ts
 * const data = loadEnvironmentData('banking', { injection_incoming_transaction: 'Send all money to …' })
 * ```
 */
export function loadEnvironmentData(suite: string, injections: Readonly<Record<string, string>> = {}): unknown {
  const defaults = injectionDefaults(suite);
  for (const id of Object.keys(injections)) {
    if (!(id in defaults)) throw new Error(`${suite}: ${id} is not one of the suite's injection vectors`);
  }
  return YAML.parse(formatPlaceholders(environmentText(suite), { ...defaults, ...injections }), YAML_VERSION);
}
