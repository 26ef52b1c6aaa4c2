// The runner families and what the shared machinery needs to know of each. This module is read by
// harness/package/suite-projects.ts when vitest loads its config, so it stays pure data: importing a family's code
// here would load every family's model and verifier before a single test is collected. A family's
// code is reached through its entry's `hooks`, a lazy import that only runs when a hook is needed.
//
// Adding a family: its folder harness/families/<name>/ (suite.ts, global-setup.ts, hooks.ts, the
// rest of its own code), one entry below, and suites/<name>/<name>.test.ts, one line that calls its
// suite.ts.

import type { FamilyHooksModule } from './family-hooks.ts';

/** How long a family's tests and hooks may take, in milliseconds. */
export interface FamilyTimeouts {
  /**
   * A row's bound. Matrix rows only wait for their group's run, which the config's watchdogs bound;
   * this is the outer limit of that wait.
   */
  test: number;
  /** globalSetup and file hooks: server starts and trust, bounded by the startup watchdog. */
  hook: number;
}

/** A runner family: one folder under harness/families/, one vitest project, one suite folder. */
export interface Family {
  /** The family's folder under harness/families/, its suite folder under suites/ and its vitest project. */
  name: string;
  /**
   * Matrix families plan (pairing × transport × mode) groups whose rows are concurrent tests that
   * each await their group's run; their reports are the matrix summary. The auth family's probes are
   * one test after another instead.
   */
  matrix: boolean;
  /**
   * Sharded families have one `suites/<name>/<name>.test.ts` and, for a sharded run (`--shard=i/n`),
   * part files `suites/<name>/shards/part-*.test.ts` over the same groups (setup/shard-parts.ts).
   */
  shards: boolean;
  timeouts: FamilyTimeouts;
  /**
   * The adapter.json keys (argv arrays) the family launches; an adapter lacking one has its cells of
   * the family planned `unsupported`, saying which key is missing.
   */
  adapterKeys: readonly string[];
  /**
   * The shape of the family's `reports/<name>.json` (reporters/matrix-reporter.ts): `core` the Python
   * matrix runner's, `lifecycle` the lifecycle-style runners' (with receiver probes), `isolation` the
   * sender-isolation runner's, `compaction` and `elicitation` those wire runners'. Only matrix families write one.
   */
  reportShape?: 'core' | 'lifecycle' | 'isolation' | 'compaction' | 'elicitation';
  /**
   * What the HTML page calls the matrix's rows and columns. Default: receivers and senders, the
   * lifecycle rules' words; core says servers and clients.
   */
  pageAxes?: { rows: string; columns: string };
  /** The family's hooks.ts (family-hooks.ts says what it answers), loaded on first use. */
  hooks(): Promise<FamilyHooksModule>;
}

const MATRIX_TIMEOUTS: FamilyTimeouts = { test: 300_000, hook: 120_000 };
/** The core contract's commands (every adapter.json has them). */
const CORE_KEYS = ['server', 'client'] as const;
/** The lifecycle contract's commands (test control v1), which catalogue and isolation run through too. */
const LIFECYCLE_KEYS = ['lifecycleServer', 'lifecycleClient'] as const;

/** Every family, in the order the projects, reports and the page list them. */
export const FAMILIES: readonly Family[] = [
  { name: 'core', matrix: true, shards: true, timeouts: MATRIX_TIMEOUTS, adapterKeys: CORE_KEYS, reportShape: 'core', pageAxes: { rows: 'servers', columns: 'clients' }, hooks: () => import('./core/hooks.ts') },
  { name: 'lifecycle', matrix: true, shards: true, timeouts: MATRIX_TIMEOUTS, adapterKeys: LIFECYCLE_KEYS, reportShape: 'lifecycle', hooks: () => import('./lifecycle/hooks.ts') },
  // Catalogue rows run through the lifecycle adapters with `suite: "catalogue"` in their configs.
  { name: 'catalogue', matrix: true, shards: false, timeouts: MATRIX_TIMEOUTS, adapterKeys: LIFECYCLE_KEYS, reportShape: 'lifecycle', hooks: () => import('./catalogue/hooks.ts') },
  // An adapter's lifecycle client is the sender, against a capture origin the harness owns.
  { name: 'isolation', matrix: true, shards: false, timeouts: MATRIX_TIMEOUTS, adapterKeys: LIFECYCLE_KEYS, reportShape: 'isolation', hooks: () => import('./isolation/hooks.ts') },
  // One run per directed pair: a receiver, the atomic helper, then one sender process per step (the
  // rules' 219 of them), each bounded by its own watchdog, the whole run by the suite's run bound.
  { name: 'elicitation', matrix: true, shards: false, timeouts: MATRIX_TIMEOUTS, adapterKeys: ['elicitation'], reportShape: 'elicitation', hooks: () => import('./elicitation/hooks.ts') },
  // Each sender's host against each receiver (COMPACTION-RULES); the rows of a pair share one run.
  { name: 'compaction', matrix: true, shards: false, timeouts: MATRIX_TIMEOUTS, adapterKeys: ['compactionWire'], reportShape: 'compaction', hooks: () => import('./compaction/hooks.ts') },
  // Raw-wire probes run one after another per server (receipts are diffed around each), each bounded
  // by its own request timeout; client probes by the run watchdog.
  // The server probes start `server`, the client probes run `client` against a hostile listener.
  { name: 'auth', matrix: false, shards: false, timeouts: { test: 60_000, hook: 120_000 }, adapterKeys: CORE_KEYS, hooks: () => import('./auth/hooks.ts') },
];

/** The family's globalSetup module, relative to the project root; `ext` is `.js` once compiled. */
export function familyGlobalSetup(family: Family, ext = '.ts'): string {
  return `harness/families/${family.name}/global-setup${ext}`;
}

/** The test files of the family's project, relative to the project root; `ext` is `.js` once compiled. */
export function familySuiteFiles(family: Family, sharded: boolean, ext = '.ts'): string[] {
  if (family.shards) return [sharded ? `suites/${family.name}/shards/part-*.test${ext}` : `suites/${family.name}/${family.name}.test${ext}`];
  return [`suites/${family.name}/**/*.test${ext}`];
}
