import type { PrincipalKind, Role } from '../../auth/types.js';
import { COMMON_HELP, type CommandHelp, commonOptions } from '../command.js';

export const ROLES: readonly Role[] = ['admin', 'operator', 'user', 'worker'];
export const KINDS: readonly PrincipalKind[] = ['user', 'service', 'worker'];

/** `wardrik tokens create|list|revoke`: manages tokens on the config's store, without a server. */
export const TOKENS_HELP: CommandHelp = {
  name: 'tokens',
  summary: 'create, list and revoke tokens (on the config’s store; no server needed)',
  usage: `Usage: wardrik tokens create --name NAME [--role ROLE] [--agents A,B] [--kind KIND] [--expires-in D]
       wardrik tokens list
       wardrik tokens revoke TOKEN_ID

Works on the store of the config (./wardrik.config.ts unless --config names one), so no
server is needed and a running server sees the change at once.

create  gives NAME a new token, shown once. A new NAME needs --role; an existing one keeps its role.
          --role R      ${ROLES.join(', ')}
          --agents A,B  the agents it may use (default: all, '*')
          --kind K      ${KINDS.join(', ')} (default: worker for the worker role, else user)
          --expires-in D  the token stops working on its own after D: 90d, 12h, 30m, 45s
                          (default: it works until revoked)
list    lists tokens (never their secrets) with their principals
revoke  revokes a token by its id (tok_…): it stops working at once

Options:
  --config FILE  the config file
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    config: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string' },
    agents: { type: 'string' },
    kind: { type: 'string' },
    'expires-in': { type: 'string' },
  },
};
