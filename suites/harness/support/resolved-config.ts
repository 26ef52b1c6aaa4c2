// A resolved config for planner unit tests: nothing on disk, every field at a plain default.

import { AUTH_MODES } from '../../../harness/config/define-config.ts';
import type { ResolvedConfig } from '../../../harness/config/load-config.ts';

export function resolvedConfig(overrides: Partial<ResolvedConfig> = {}): ResolvedConfig {
  return {
    file: '/cfg/adapters.config.ts',
    dir: '/cfg',
    schemas: '/cfg/schemas',
    scenarios: { core: '/cfg/scenarios.json' },
    adapters: [],
    transports: ['http', 'stdio'],
    auth: [...AUTH_MODES],
    pairings: null,
    watchdogs: { startupMs: 1000, runMs: 1000 },
    parallelism: 2,
    reports: '/cfg/reports',
    baseline: null,
    blind: false,
    compare: null,
    elicitation: { binding: 'upload' },
    ...overrides,
  };
}
