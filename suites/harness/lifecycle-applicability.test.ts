// Transport applicability (LIFECYCLE-RULES §8): rows without `transports` run on both; excluded rows
// are listed with their own reason or "scenario requires <t> transport". The protocol's lifecycle
// file runs 28 rows over HTTP and 27 over stdio.

import { describe, expect, test } from 'vitest';

import { inapplicabilityReason, splitByTransport } from '../../harness/families/lifecycle/applicability.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { unsatisfiableReason } from '../../harness/families/lifecycle/unsatisfiable-rows.ts';
import type { ChainScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { sampleLifecycleFile } from './support/lifecycle-rows.ts';

describe('inapplicabilityReason', () => {
  test('no transports: runs on both', () => {
    expect(inapplicabilityReason({ id: 'r' }, 'http')).toBeUndefined();
    expect(inapplicabilityReason({ id: 'r' }, 'stdio')).toBeUndefined();
  });

  test('a listed transport runs; another is excluded with the row’s own reason', () => {
    const row = { id: 'r', transports: ['http' as const], inapplicableReason: 'needs two outstanding requests' };
    expect(inapplicabilityReason(row, 'http')).toBeUndefined();
    expect(inapplicabilityReason(row, 'stdio')).toBe('needs two outstanding requests');
  });

  test('without a reason, the default names the required transports', () => {
    expect(inapplicabilityReason({ id: 'r', transports: ['stdio'] }, 'http')).toBe('scenario requires stdio transport');
  });
});

describe('splitByTransport', () => {
  test('keeps file order and lists excluded rows as inapplicable results', () => {
    const rows = sampleLifecycleFile().scenarios;
    const http = splitByTransport(rows, 'http');
    expect(http.applicable.map((r) => r.id)).toEqual(['held-publish', 'uploads', 'two-pending', 'chain-deny']);
    expect(http.inapplicable).toEqual([{ id: 'stdio-stray', status: 'inapplicable', transport: 'http', reason: 'scenario requires stdio transport' }]);
    const stdio = splitByTransport(rows, 'stdio');
    expect(stdio.applicable.map((r) => r.id)).toEqual(['held-publish', 'uploads', 'stdio-stray', 'chain-deny']);
    expect(stdio.inapplicable).toEqual([{ id: 'two-pending', status: 'inapplicable', transport: 'stdio', reason: 'two outstanding requests need HTTP' }]);
    expect(http.applicable[0]).toBe(rows[0]);
  });
});

const canonical = canonicalInteropFile('lifecycle-scenarios.json');

describe.skipIf(canonical === undefined)(
  canonical ? 'the canonical lifecycle file' : `the canonical lifecycle file (SKIPPED: not found in ${canonicalInteropCandidate()})`,
  () => {
    const rows = canonical ? loadLifecycleScenarioFileSync(canonical).scenarios : [];

    test('HTTP runs 28 rows: all but the two stdio-only ones', () => {
      const { applicable, inapplicable } = splitByTransport(rows, 'http');
      expect(applicable).toHaveLength(28);
      expect(inapplicable).toEqual([
        { id: 'stdio-unsolicited-old-before-live', status: 'inapplicable', transport: 'http', reason: 'scenario requires stdio transport' },
        { id: 'stdio-unknown-before-live', status: 'inapplicable', transport: 'http', reason: 'scenario requires stdio transport' },
      ]);
    });

    test('stdio runs 27 rows: not the three needing two outstanding intercepts, whose reason cites stdio', () => {
      const { applicable, inapplicable } = splitByTransport(rows, 'stdio');
      expect(applicable).toHaveLength(27);
      expect(inapplicable.map((r) => r.id)).toEqual(['late-old-while-next-pending', 'request-specific-acceptance', 'two-staged-reverse-acceptance']);
      for (const row of inapplicable) expect(row.reason).toMatch(/one outstanding intercept request per persistent backend/);
    });
  },
);

describe('unsatisfiableReason', () => {
  const chainRow = (): ChainScenario => structuredClone(sampleLifecycleFile().scenarios.find((r) => r.id === 'chain-deny')) as ChainScenario;

  test('ordinary rows and interrupt chains without observations run', () => {
    for (const row of sampleLifecycleFile().scenarios) expect(unsatisfiableReason(row)).toBeUndefined();
    const row = chainRow();
    row.chain.interrupt = true;
    row.chainProof.observations = [];
    expect(unsatisfiableReason(row)).toBeUndefined();
  });

  test('an interrupt chain that expects observations cannot be passed and says why', () => {
    const row = chainRow();
    expect(row.chainProof.observations.length).toBeGreaterThan(0);
    row.chain.interrupt = true;
    expect(unsatisfiableReason(row)).toMatch(/^unsatisfiable fixture row: chain\.interrupt forbids any observation work .* expects \d+ observation\(s\);/);
    row.chain.holdObservers = true;
    expect(unsatisfiableReason(row)).toMatch(/observer-blocked proof for each \(chain\.holdObservers: true\)/);
  });
});

const chains = canonicalInteropFile('observation-chain-scenarios.json');

describe.skipIf(canonical === undefined || chains === undefined)(
  chains ? 'the canonical chain files' : `the canonical chain files (SKIPPED: not found in ${canonicalInteropCandidate()})`,
  () => {
    test('only the superseded interrupt row of observation-chain-scenarios.json is unsatisfiable', () => {
      const old = loadLifecycleScenarioFileSync(chains!).scenarios;
      expect(old.filter((row) => unsatisfiableReason(row) !== undefined).map((row) => row.id)).toEqual(['observation-chain-interrupt']);
      const current = loadLifecycleScenarioFileSync(canonical!).scenarios;
      expect(current.filter((row) => unsatisfiableReason(row) !== undefined)).toEqual([]);
    });
  },
);
