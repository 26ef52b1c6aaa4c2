import { defineConfig } from './harness/config/define-config.ts';

// What to test. Paths are relative to this file. Point AHP_CONFIG at another file
// (.ts, .mjs or .json) to test other SDKs or the protocol's own scenario files.
export default defineConfig({
  schemas: 'schemas',
  scenarios: {
    core: 'fixtures/scenarios.json',
    lifecycle: 'fixtures/lifecycle-scenarios.json',
    catalogue: 'fixtures/catalogue-scenarios.json',
    compaction: 'fixtures/compaction.json',
  },
  adapters: [{ name: 'reference', cwd: 'adapters/reference' }],
  transports: ['http', 'stdio'],
  auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'],
  watchdogs: { startupMs: 20_000, runMs: 120_000 },
  parallelism: 2,
});
