// The catalogue receiver probes (harness/families/catalogue/catalogue-receiver-probes.ts) against the honest
// reference receiver and lying ones: the REAL `catalogue` project runs once as a child process, only
// its receiver probes (`-t receiver/`), over HTTP with auth none, and we assert on vitest's JSON
// report that the honest receiver passes both probes and each lie fails exactly the probe it breaks,
// with the probe's label and the difference.
//
// Each liar is the REAL reference catalogue server with one module swapped
// (fixtures/lying-lifecycle-common/lie.mjs):
//   observes-event-less      its receipts show the event-less notification as observed
//   invents-event-id         its receipts record it under the event id "" instead of null
//   reads-event-id           it reads params.event.id before judging (a TypeError: 500, no record)
//   stops-after-rejection    the rejection is recorded, but the receiver stops judging after it

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { CATALOGUE_RECEIVER_PROBES, type CatalogueReceiverProbeName } from '../../harness/families/catalogue/catalogue-receiver-probes.ts';
import { CATALOGUE_PROBE_COVERAGE } from '../../harness/families/catalogue/coverage.ts';
import { fixtureAdapter, referenceAdapter, removeChildRun } from './support/child-vitest-run.ts';
import { completeChildRun, GONE_MS, type CompletedRun } from './support/completed-child-run.ts';
import type { JsonAssertion } from './support/vitest-json-report.ts';

const CHILD_TIMEOUT_MS = 120_000;
const LIARS = ['observes-event-less', 'invents-event-id', 'reads-event-id', 'stops-after-rejection'] as const;
const label = (name: CatalogueReceiverProbeName): string => CATALOGUE_RECEIVER_PROBES.find((probe) => probe.name === name)!.label;

/** The probe tests of one server, by probe name. */
function probesOf(run: CompletedRun, server: string): Map<string, JsonAssertion> {
  const rows = run.rows.filter((row) => row.ancestorTitles.at(-1) === `${server} none` && row.title.startsWith('receiver/'));
  return new Map(rows.map((row) => [row.title.slice('receiver/'.length), row]));
}

function expectProbes(run: CompletedRun, server: string, failing: Partial<Record<CatalogueReceiverProbeName, string[]>>): void {
  const probes = probesOf(run, server);
  expect([...probes.keys()].sort(), `the probe tests of ${server}; child output:\n${run.output.slice(-3000)}`).toEqual(CATALOGUE_RECEIVER_PROBES.map((p) => p.name).sort());
  for (const { name } of CATALOGUE_RECEIVER_PROBES) {
    const row = probes.get(name)!;
    const needles = failing[name];
    if (needles === undefined) {
      expect(row.status, `${server} receiver/${name}: ${row.failureMessages.join('\n')}`).toBe('passed');
      continue;
    }
    expect(row.status, `${server} receiver/${name} must fail`).toBe('failed');
    const message = row.failureMessages.join('\n');
    for (const needle of [`server fault: server "${server}": ${label(name)}: `, ...needles]) expect(message).toContain(needle);
  }
}

describe('catalogue receiver probes (one catalogue run of only its probes: the reference receiver and four liars, http/none)', () => {
  const run = {} as CompletedRun;
  beforeAll(async () => {
    Object.assign(
      run,
      await completeChildRun({
        name: 'catalogue-probes',
        project: 'catalogue',
        config: {
          adapters: [referenceAdapter(), ...LIARS.map((lie) => fixtureAdapter(`lying-catalogue-server-${lie}`, `server-${lie}`))],
          pairings: [{ server: 'reference', client: 'reference' }],
          transports: ['http'],
          watchdogs: { startupMs: 20_000, runMs: 30_000 },
          catalogueScenarioIds: ['event:tool.before'],
        },
        timeoutMs: CHILD_TIMEOUT_MS,
        options: { args: ['-t', 'receiver/'] },
        runDirPrefix: 'ahp-catalogue-',
      }),
    );
  }, CHILD_TIMEOUT_MS + GONE_MS + 10_000);
  afterAll(() => {
    if (run.dirs) removeChildRun(run.dirs);
  });

  test('the child ran only probes, and no recorded process survives it', () => {
    expect(run.timedOut, run.output.slice(-3000)).toBe(false);
    expect(run.rows.every((row) => row.status === 'skipped' || row.title.startsWith('receiver/')), 'only probe tests ran').toBe(true);
    expect(run.survivors).toEqual([]);
    expect(run.leftover).toEqual([]);
  });

  test('the honest reference receiver passes both probes', () => {
    expectProbes(run, 'reference', {});
  });

  test('a receiver that shows the event-less notification as observed fails the first probe only', () => {
    expectProbes(run, 'server-observes-event-less', { 'event-less-observation': ['got "observed" of event id null'] });
  });

  test('a receiver that records it under another event id than null fails the first probe only', () => {
    expectProbes(run, 'server-invents-event-id', { 'event-less-observation': ['got "rejected" ("schema") of event id ""'] });
  });

  test('a receiver that throws reading the missing event id records nothing for it (answered 500)', () => {
    expectProbes(run, 'server-reads-event-id', { 'event-less-observation': ['got none (answered 500'] });
  });

  test('a receiver that stops after the rejection fails the second probe: the notification sent next is never observed', () => {
    expectProbes(run, 'server-stops-after-rejection', { 'observes-after-event-less': ['expected POST /wait-observed {eventId:"catalogue-receiver-probe-event", count:1} to return, got'] });
  });
});

test('every coverage item the catalogue fixture leaves to a probe names a probe that exists', () => {
  const names: readonly string[] = CATALOGUE_RECEIVER_PROBES.map((probe) => probe.name);
  expect(CATALOGUE_PROBE_COVERAGE.length).toBeGreaterThan(0);
  for (const item of CATALOGUE_PROBE_COVERAGE) expect(names, item.tag).toContain(item.probe);
});
