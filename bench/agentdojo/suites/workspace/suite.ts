import type { Suite } from '../../task-types.ts';
import { type WorkspaceEnvironment, workspaceEnvironment, workspaceFunctions } from './environment.ts';
import { workspaceInjectionTasks } from './injection-tasks.ts';
import { workspaceUserTasks } from './user-tasks.ts';

/** AgentDojo v1's workspace suite. */
export const workspaceSuite: Suite<WorkspaceEnvironment> = {
  name: 'workspace',
  functions: workspaceFunctions,
  environment: workspaceEnvironment,
  userTasks: workspaceUserTasks,
  injectionTasks: workspaceInjectionTasks,
};
