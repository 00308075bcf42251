// The ported suites, in AgentDojo's order.
import { bankingSuite } from './suites/banking/suite.ts';
import { slackSuite } from './suites/slack/suite.ts';
import { travelSuite } from './suites/travel/suite.ts';
import { workspaceSuite } from './suites/workspace/suite.ts';
import type { Suite } from './task-types.ts';

export const suites: ReadonlyArray<Suite<never>> = [
  workspaceSuite,
  travelSuite,
  bankingSuite,
  slackSuite,
] as unknown as ReadonlyArray<Suite<never>>;
