import type { Suite } from '../../task-types.ts';
import { type SlackEnvironment, slackEnvironment, slackFunctions } from './environment.ts';
import { slackInjectionTasks } from './injection-tasks.ts';
import { slackUserTasks } from './user-tasks.ts';

/** AgentDojo v1's Slack suite. */
export const slackSuite: Suite<SlackEnvironment> = {
  name: 'slack',
  functions: slackFunctions,
  environment: slackEnvironment,
  userTasks: slackUserTasks,
  injectionTasks: slackInjectionTasks,
};
