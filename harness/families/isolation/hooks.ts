// The isolation family's hooks (family-hooks.ts): its configured rows. Its one row is derived from
// the lifecycle fixture at run time; it generates no fixture file of its own.

import type { FamilyHooks } from '../family-hooks.ts';
import { planIsolationCases } from './isolation-cases.ts';
import { ISOLATION_ROW_ID } from './isolation-scenario.ts';

export const hooks: FamilyHooks = {
  // The isolation grid is fixed (it does not follow the config's transports and modes).
  configuredRows: async (_config, adapters) => planIsolationCases(adapters.values()).map((group) => ({ project: 'isolation', group: group.label, id: ISOLATION_ROW_ID })),
};
