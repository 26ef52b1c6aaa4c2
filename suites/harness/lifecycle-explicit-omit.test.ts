// The explicit omit client through the REAL lifecycle project: the reference lifecycle client with
// every empty chain view sent in the explicit omit form of its row's original items
// (fixtures/interop-explicit-omit-client), what the SDK clients of issue 17 do. LIFECYCLE-RULES §7.8
// accepts both forms on intercept calls and observations, so it must pass every chain row — ours and
// the protocol's canonical ones, which before §7.8 was corrected failed `observation-chain-fail-open`
// and `observation-chain-continue` — over http and stdio, beside the honest reference client.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { PROJECT_ROOT } from '../../harness/protocol/load-validators.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';
import { expectRows } from './support/expect-labelled-rows.ts';

const CHILD_TIMEOUT_MS = 150_000;
const WATCHDOGS = HONEST_WATCHDOGS;
const canonicalFile = canonicalInteropFile('lifecycle-scenarios.json');

const chainRowsOf = (file: string) => loadLifecycleScenarioFileSync(file).scenarios.filter((row) => row.chain !== undefined);
const OWN = chainRowsOf(path.join(PROJECT_ROOT, 'fixtures', 'lifecycle-scenarios.json'));

describe.skipIf(canonicalFile === undefined)(canonicalFile ? 'the explicit omit client passes every chain row' : `the explicit omit client (SKIPPED: no lifecycle-scenarios.json in ${canonicalInteropCandidate()})`, () => {
  const canonical = canonicalFile ? chainRowsOf(canonicalFile) : [];
  const ids = [...OWN, ...canonical].map((row) => row.id);
  let dirs: ChildRunDirs | undefined;
  let run = {} as ChildRun;

  beforeAll(async () => {
    dirs = prepareChildRun('explicit-omit', {
      adapters: [referenceAdapter(), fixtureAdapter('interop-explicit-omit-client', 'explicit-omit')],
      pairings: [
        { server: 'reference', client: 'reference' },
        { server: 'reference', client: 'explicit-omit' },
      ],
      transports: ['http', 'stdio'],
      watchdogs: WATCHDOGS,
      lifecycleScenarioIds: OWN.map((row) => row.id),
    });
    // Our chain rows, then the protocol's, in one file (their ids are distinct).
    writeFileSync(dirs.lifecycleScenarioFile, `${JSON.stringify({ version: 1, scenarios: [...OWN, ...canonical] })}\n`);
    run = await runVitestChild(dirs, 'lifecycle', CHILD_TIMEOUT_MS, { args: ['-t', '→'] });
  }, CHILD_TIMEOUT_MS + 10_000);
  afterAll(() => {
    if (dirs) removeChildRun(dirs);
  });

  test('the file holds our chain rows and the two canonical rows SDK clients used to fail', () => {
    expect(OWN.length).toBeGreaterThan(0);
    expect(ids).toEqual(expect.arrayContaining(['observation-chain-fail-open', 'observation-chain-continue']));
  });

  test.for(['http', 'stdio'] as const)('%s: the honest client and the explicit omit client pass every row', (transport) => {
    expect(run.timedOut, run.output.slice(-4000)).toBe(false);
    expectRows(run, `reference→reference ${transport}/none`, ids, {});
    expectRows(run, `reference→explicit-omit ${transport}/none`, ids, {});
  });

  test('the explicit omit client did send explicit omit forms, intercept calls included, on both canonical rows', () => {
    const folder = path.join(dirs!.dir, 'explicit-omit');
    const lines = readdirSync(folder).flatMap((file) => readFileSync(path.join(folder, file), 'utf8').split('\n').filter(Boolean));
    for (const row of ['observation-chain-fail-open', 'observation-chain-continue']) expect(lines).toContain(`hooks/intercept ${row}`);
    expect(lines.some((line) => line.startsWith('hooks/observe '))).toBe(true);
    expect(lines.some((line) => OWN.some((row) => line === `hooks/intercept ${row.id}`))).toBe(true);
  });
});
