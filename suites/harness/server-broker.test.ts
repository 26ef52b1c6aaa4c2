// Starting only what a selection needs (harness/setup/selection-forecast.ts, server-broker.ts): the
// forecast follows vitest's own `-t` rule and says nothing where the selection is unknowable; the
// broker starts forecast servers in the background, a lease for one of them takes the warmed
// instance (or waits for it) instead of starting a second, and the broker starts nothing on its own.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { createLazyRunTrust } from '../../harness/auth/run-trust.ts';
import { AUTH_MODES } from '../../harness/config/define-config.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { planMatrix } from '../../harness/runs/plan.ts';
import { recordTiming, timingKeys, type RunTimings } from '../../harness/setup/run-timings.ts';
import { ServerBroker } from '../../harness/setup/server-broker.ts';
import { forecastHttpServers, knownSelection, selectsRow, type ForecastSelection } from '../../harness/setup/selection-forecast.ts';
import { resolvedConfig } from './support/resolved-config.ts';

const location = { name: 'reference', cwd: path.join(projectRoot(), 'adapters', 'reference'), adapterFile: path.join(projectRoot(), 'adapters', 'reference', 'interop', 'adapter.json') };
const reference = loadAdapter(location);
const adapters = new Map<string, LoadedAdapter>([['reference', reference]]);
const groups = planMatrix(resolvedConfig({ adapters: [location] }), adapters);
const ROWS = ['permission.deny', 'permission.allow', 'message.one'];
const plain: ForecastSelection = { testNamePattern: undefined, fileFilters: undefined, watch: false, sharded: false };
const keys = (servers: Array<{ key: string }>): string[] => servers.map((server) => server.key);

describe('forecastHttpServers', () => {
  test('a plain run: one server per HTTP mode (stdio needs none), the costliest group first', () => {
    const timings: RunTimings = new Map();
    recordTiming(timings, timingKeys(groups.find((group) => group.label === 'reference→reference http/mtls')!).pair, 3, 9_000);
    expect(keys(forecastHttpServers(plain, groups, ROWS, timings))).toEqual([
      'reference/mtls',
      ...AUTH_MODES.filter((mode) => mode !== 'mtls').map((mode) => `reference/${mode}`),
    ]);
  });

  test('-t: only the modes whose groups have a selected row, matched as vitest matches `<group> <row id>`', () => {
    const only = (pattern: RegExp): string[] => keys(forecastHttpServers({ ...plain, testNamePattern: pattern }, groups, ROWS, new Map()));
    expect(only(/^reference→reference http\/none permission\.deny$/)).toEqual(['reference/none']);
    expect(only(/http\/(bearer|oauth) message/g)).toEqual(['reference/bearer', 'reference/oauth']);
    expect(only(/stdio\/none/)).toEqual([]);
    expect(only(/no such row/)).toEqual([]);
  });

  test('nothing where the selection is not known yet: watch mode, the IDE, a file:line filter, a shard', () => {
    expect(forecastHttpServers({ ...plain, watch: true }, groups, ROWS, new Map())).toEqual([]);
    expect(forecastHttpServers({ ...plain, sharded: true }, groups, ROWS, new Map())).toEqual([]);
    expect(forecastHttpServers({ ...plain, fileFilters: ['suites/core/core.test.ts:12'] }, groups, ROWS, new Map())).toEqual([]);
    expect(keys(forecastHttpServers({ ...plain, fileFilters: ['suites/core'] }, groups, ROWS, new Map()))).toHaveLength(AUTH_MODES.length);
  });
});

describe('knownSelection (what the workers start runs for while vitest collects)', () => {
  test('a plain run selects every row; -t selects the rows vitest will match, flags kept, g/y ignored', () => {
    expect(knownSelection(plain)).toEqual({ pattern: null });
    const sticky = knownSelection({ ...plain, testNamePattern: /http\/none (permission|MESSAGE)\./giy })!;
    expect(sticky).toEqual({ pattern: { source: 'http\\/none (permission|MESSAGE)\\.', flags: 'giy' } });
    const selects = selectsRow(sticky);
    // Row after row the same answers: a g/y pattern's lastIndex must not leak between rows.
    for (let i = 0; i < 3; i++) {
      expect(selects('reference→reference http/none', 'permission.deny')).toBe(true);
      expect(selects('reference→reference http/none', 'message.one')).toBe(true);
      expect(selects('reference→reference http/bearer', 'permission.deny')).toBe(false);
    }
  });

  test('unknown (null) in watch mode, the IDE, a shard, a file:line filter or a tags filter', () => {
    expect(knownSelection({ ...plain, watch: true })).toBeNull();
    expect(knownSelection({ ...plain, sharded: true })).toBeNull();
    expect(knownSelection({ ...plain, fileFilters: ['suites/core/core.test.ts:12'] })).toBeNull();
    expect(knownSelection({ ...plain, tagsFilter: ['slow'] })).toBeNull();
    expect(knownSelection({ ...plain, fileFilters: ['suites/core'], tagsFilter: [] })).toEqual({ pattern: null });
  });
});

describe('ServerBroker', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-broker-'));
  const trust = createLazyRunTrust(dir);
  const broker = new ServerBroker({
    adapters,
    trust,
    scenarioFile: path.join(projectRoot(), 'fixtures', 'scenarios.json'),
    schemaDir: path.join(projectRoot(), 'schemas'),
    runDir: dir,
    logDir: path.join(dir, 'logs'),
    startupMs: 20_000,
    maxInstances: 2,
  });
  afterAll(async () => {
    await broker.stop();
    await trust.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('starts nothing by itself', async () => {
    await broker.listen();
    expect(broker.startedKeys()).toEqual([]);
    expect(trust.modes).toEqual([]);
  });

  test('a lease during the prewarm of its server waits for that instance instead of starting another', async () => {
    const warming = broker.prewarm([{ adapter: reference, auth: 'none' }, { adapter: reference, auth: 'bearer' }]);
    await new Promise((resolve) => setImmediate(resolve)); // the prewarm is now starting `none`
    const lease = await broker.lease('reference', 'none');
    expect(lease.lease).toBeDefined();
    await warming;
    expect(broker.startedKeys().sort()).toEqual(['reference/bearer', 'reference/none']);
    // Both leased and warmed: one instance of each, the lease took the warmed one.
    expect(broker.instanceCount('reference/none')).toBe(1);
    const bearer = await broker.lease('reference', 'bearer');
    expect(broker.instanceCount('reference/bearer')).toBe(1);
    await broker.release(lease.lease!);
    await broker.release(bearer.lease!);
    // Only the modes that were used got their trust.
    expect([...trust.modes].sort()).toEqual(['bearer', 'none']);
  }, 60_000);

  test('a prewarm of a server that already runs starts nothing', async () => {
    await broker.prewarm([{ adapter: reference, auth: 'none' }]);
    expect(broker.instanceCount('reference/none')).toBe(1);
  });
});
