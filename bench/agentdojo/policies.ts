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

/**
 * The same two with `provenance: true` (item 4 of issue 31): a call held only because the run read
 * outside text passes when every value it sends comes from the user's message (or from unlabelled
 * answers of calls whose arguments did).
 */
export const withProvenance: readonly NamedPolicy[] = [
  { name: 'default + provenance', policy: { provenance: true } },
  { name: 'exfiltration + provenance', policy: { exfiltration: true, provenance: true } },
];

/** No gate at all: what the same compromised model does to an agent that runs every call. */
export const undefended: NamedPolicy = {
  name: 'undefended (no gates)',
  policy: { rules: [{ name: 'undefended', when: () => true, verdict: 'allow' }] },
};
