// A configured catalogue file with a row no client can run (a notification without an event: nothing
// to /wait-observed on) still runs: the REAL `catalogue` project, as a child process on such a file,
// skips that row with the loader's reason (file, JSON path, rule) and runs the others. The client is
// one that behaves as the public SDK clients were seen to (fixtures/interop-catalogue-client-reads-
// event-id): it reads the event id of every message before sending and dies on one without, taking
// the whole run with it. The rows around the unrunnable one pass, so it never reached the client.

import { readFileSync, writeFileSync } from 'node:fs';

import { afterAll, beforeAll, expect, test } from 'vitest';

import { CATALOGUE_RUNNABILITY_RULES } from '../../harness/families/catalogue/catalogue-runnability.ts';
import type { CatalogueScenario } from '../../harness/families/catalogue/scenario-types.ts';
import { CatalogueRowRunner as ReadsEventIdRunner } from './fixtures/interop-catalogue-client-reads-event-id/row-runner.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, type ChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';
import { groupRows } from './support/vitest-json-report.ts';

const CLIENT = 'client-reads-event-id';
const GROUP = `reference→${CLIENT} http/none`;
const EVENT_LESS = { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft' } };
const UNRUNNABLE = {
  id: 'configured:event-less',
  category: 'execution',
  steps: [{ op: 'rawNotify', message: EVENT_LESS }],
  expected: { sent: [EVENT_LESS], registrations: [], deliveries: [{ accepted: false, errorKind: 'schema' }] },
  requests: {},
  responses: {},
};

let dirs: ChildRunDirs;
let run: ChildRun;

beforeAll(async () => {
  dirs = prepareChildRun('catalogue-unrunnable', {
    adapters: [referenceAdapter(), fixtureAdapter('interop-catalogue-client-reads-event-id', CLIENT)],
    pairings: [{ server: 'reference', client: CLIENT }],
    transports: ['http'],
    watchdogs: { startupMs: 20_000, runMs: 30_000 },
    catalogueScenarioIds: ['event:tool.before', 'event:turn.end'],
  });
  // The unrunnable row sits between two runnable ones, as in a user's file.
  const file = JSON.parse(readFileSync(dirs.catalogueScenarioFile, 'utf8')) as { scenarios: unknown[] };
  file.scenarios.splice(1, 0, UNRUNNABLE);
  writeFileSync(dirs.catalogueScenarioFile, `${JSON.stringify(file)}\n`);
  run = await runVitestChild(dirs, 'catalogue', 90_000, { args: ['-t', GROUP] });
}, 100_000);
afterAll(() => {
  if (dirs) removeChildRun(dirs);
});

test('the unrunnable row is skipped with the file, the JSON path and the rule; the rows around it run and pass', () => {
  expect(run.exitCode, run.output.slice(-3000)).toBe(0);
  const rows = groupRows(run.rows, GROUP);
  expect(rows.map((row) => [row.title, row.status])).toEqual([
    ['event:tool.before', 'passed'],
    ['configured:event-less', 'skipped'],
    ['event:turn.end', 'passed'],
  ]);
  const reason = rows[1]!.meta?.ahpMatrix?.skipReason ?? '';
  const rule = CATALOGUE_RUNNABILITY_RULES.waitObservedEventId;
  expect(reason).toContain(`${dirs.catalogueScenarioFile}: scenarios[1].steps[0].message.params.event: expected an event object with an id`);
  expect(reason).toContain(`[rule: ${rule.section} (a runnable row ${rule.demand})]`);
});

test('the client really dies on the row: run directly, it throws before sending anything', async () => {
  const sent: unknown[] = [];
  const services = { transport: { notify: (message: unknown) => (sent.push(message), Promise.resolve({ ok: true, status: 204 })) }, control: { waitObserved: () => Promise.resolve() } };
  const runner = new ReadsEventIdRunner(services as unknown as ConstructorParameters<typeof ReadsEventIdRunner>[0]);
  await expect(runner.run(UNRUNNABLE as unknown as CatalogueScenario)).rejects.toThrow(TypeError);
  expect(sent).toEqual([]);
});
