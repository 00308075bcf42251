// The policies the benchmark compares: Wardrik's default, the stricter one that also holds
// open-world reads after outside text, and none at all (every call runs: the undefended agent).
import type { Policy } from 'wardrik';

export interface NamedPolicy {
  readonly name: string;
  readonly policy: Policy;
}

export const policies: readonly NamedPolicy[] = [
  { name: 'default', policy: {} },
  { name: 'exfiltration: true', policy: { exfiltration: true } },
];

/** No gate at all: what the same compromised model does to an agent that runs every call. */
export const undefended: NamedPolicy = {
  name: 'undefended (no gates)',
  policy: { rules: [{ name: 'undefended', when: () => true, verdict: 'allow' }] },
};
