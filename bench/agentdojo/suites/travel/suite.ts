import type { Suite } from '../../task-types.ts';
import { type TravelEnvironment, travelEnvironment, travelFunctions } from './environment.ts';
import { travelInjectionTasks } from './injection-tasks.ts';
import { travelUserTasks } from './user-tasks.ts';

/** AgentDojo v1's travel suite. */
export const travelSuite: Suite<TravelEnvironment> = {
  name: 'travel',
  functions: travelFunctions,
  environment: travelEnvironment,
  userTasks: travelUserTasks,
  injectionTasks: travelInjectionTasks,
};
