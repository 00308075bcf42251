import type { Suite } from '../../task-types.ts';
import { type BankingEnvironment, bankingEnvironment, bankingFunctions } from './environment.ts';
import { bankingInjectionTasks } from './injection-tasks.ts';
import { bankingUserTasks } from './user-tasks.ts';

/** AgentDojo v1's banking suite. */
export const bankingSuite: Suite<BankingEnvironment> = {
  name: 'banking',
  functions: bankingFunctions,
  environment: bankingEnvironment,
  userTasks: bankingUserTasks,
  injectionTasks: bankingInjectionTasks,
};
