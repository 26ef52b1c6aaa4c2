// Blind mode (harness/runs/blind.ts) through the REAL core project: two lying clients that really send
// every request — one copies each row's expected answer into `actual`, one answers from a table keyed
// by scenario id — pass every row of a normal run (the contract cannot see them), and fail every
// positive row of a blind run, while the honest reference client passes blind. The server gets opaque
// ids too: a server that passes invalid scripted responses through only for the ids it knows
// (fixtures/interop-id-branching-server) fails the rows it does not know in a normal run, and every
// such row in a blind run, each in the words "replaced the scripted response with its own error
// envelope".

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { blindScenarios, decoy } from '../../harness/runs/blind.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { fixtureAdapter, prepareChildRun, referenceAdapter, removeChildRun, runVitestChild, SELFTEST_SCENARIO_IDS, type ChildRun, type ChildRunDirs } from './support/child-vitest-run.ts';
import { expectGroup } from './support/expect-group.ts';
import { compareExpected } from '../../harness/oracle/compare-result.ts';

const POSITIVE = SELFTEST_SCENARIO_IDS.slice(0, 4);
const CLIENTS = ['reference', 'client-copies-expected', 'client-branches-on-ids'] as const;
/** A second schema-invalid response beside inject.deliver-at-unknown, which the id-branching server knows. */
const UNKNOWN_INVALID = 'envelope.result-carries-manifest';
const SCENARIO_IDS = [...SELFTEST_SCENARIO_IDS, UNKNOWN_INVALID];
/** The id-branching server's verdict on a row it answered with its own error, in a run of these rows. */
const replacedNeedles = (id: string, otherPassedThrough: number): Array<string | RegExp> => [
  '[responses/mismatch] server fault: server "id-branching"',
  'replaced the scripted response of',
  'with its own error envelope (error -32603 "Internal error")',
  'a server must hand every scripted response through unchanged, invalid ones included',
  `in the same run it handed ${otherPassedThrough} other invalid scripted response(s) through unchanged`,
  'Scripted: {',
  ...(otherPassedThrough === 2 ? [`of "${id}"`] : [new RegExp(`\\(blind run: "blind-[0-9a-f]+" is row "${id.replace(/\./g, '\\.')}"\\)`)]),
];

describe('blindScenarios', () => {
  const row: Scenario = {
    id: 'a.b',
    request: { jsonrpc: '2.0', id: 'a.b', method: 'hooks/intercept', params: { protocolVersion: 'draft', event: { id: 'a.b', type: 'tool.before' }, capabilities: { effects: [] } } },
    response: { jsonrpc: '2.0', id: 'a.b', result: { protocolVersion: 'draft', effects: [] } },
    expected: { decision: 'allow', executed: true, input: { task: 1 }, messages: [], flow: 'stop' },
    tags: ['permission'],
  };
  const wrongId: Scenario = { ...row, id: 'c', request: { ...row.request, id: 'c', params: { ...row.request.params, event: { id: 'c', type: 'tool.before' } } }, response: { jsonrpc: '2.0', id: 'zz', result: {} }, expected: undefined, expectError: true };

  test('renames every scenario id consistently, drops tags, keeps wrong response ids, and maps back', () => {
    let n = 0;
    const blind = blindScenarios([row, wrongId], () => String(++n));
    const [a, c] = blind.judgedScenarios;
    expect([a!.id, a!.request.id, (a!.request.params.event as { id: string }).id, (a!.response as { id: string }).id]).toEqual(['blind-1', 'blind-1', 'blind-1', 'blind-1']);
    expect((c!.response as { id: string }).id).toBe('zz');
    expect(a).not.toHaveProperty('tags');
    expect(a!.expected).toEqual(row.expected);
    expect(blind.originalId).toEqual(new Map([['blind-1', 'a.b'], ['blind-2', 'c']]));
    expect(blind.clientScenarios[1]!.expectError).toBe(true);
  });

  test('every asserted key of a decoy is wrong, and the decoy keeps the shape', () => {
    const blind = blindScenarios([row]).clientScenarios[0]!;
    const differences = compareExpected(row.expected!, blind.expected);
    expect(new Set(differences.map((d) => d.key))).toEqual(new Set(Object.keys(row.expected!)));
    expect(blind.expected).toEqual({ decision: 'deny', executed: false, input: { task: 2 }, messages: ['decoy'], flow: 'continue' });
    expect(decoy(null)).not.toBeNull();
    expect(decoy({})).toEqual({ decoy: true });
  });
});

function runWith(blind: boolean): { run: ChildRun; dirs: ChildRunDirs } {
  const holder = {} as { run: ChildRun; dirs: ChildRunDirs };
  beforeAll(async () => {
    holder.dirs = prepareChildRun(blind ? 'blind' : 'not-blind', {
      adapters: [
        referenceAdapter(),
        fixtureAdapter('blind-client-copies-expected', 'client-copies-expected'),
        fixtureAdapter('blind-client-branches-on-ids', 'client-branches-on-ids'),
        fixtureAdapter('interop-id-branching-server', 'id-branching'),
      ],
      pairings: [...CLIENTS.map((client) => ({ server: 'reference', client })), { server: 'id-branching', client: 'reference' }],
      scenarioIds: SCENARIO_IDS,
      transports: ['http', 'stdio'],
      watchdogs: { startupMs: 20_000, runMs: 60_000 },
    });
    holder.run = await runVitestChild(holder.dirs, 'core', 150_000, { env: { AHP_BLIND: blind ? '1' : '0' } });
  }, 160_000);
  afterAll(() => {
    if (holder.dirs) removeChildRun(holder.dirs);
  });
  return holder;
}

describe('a normal run cannot tell the lying clients from an honest one', () => {
  const holder = runWith(false);
  test.each(CLIENTS.flatMap((client) => ['http/none', 'stdio/none'].map((group) => [client, group] as const)))('reference→%s %s passes every row', (client, group) => {
    expect(holder.run.timedOut, holder.run.output.slice(-3000)).toBe(false);
    expect(holder.run.exitCode, holder.run.output.slice(-3000)).toBe(1); // the id-branching server's group fails, by design
    expectGroup(holder.run, `reference→${client} ${group}`, { kind: 'pass' }, SCENARIO_IDS);
  });
  test.each(['http/none', 'stdio/none'])('a server that passes invalid responses through only for ids it knows fails the row it does not know, in the new words (%s)', (group) => {
    // The known row and the schema-valid negative passed through: two others.
    expectGroup(holder.run, `id-branching→reference ${group}`, { kind: 'fail-some', failing: { [UNKNOWN_INVALID]: replacedNeedles(UNKNOWN_INVALID, 2) } }, SCENARIO_IDS);
  });
});

describe('a blind run catches them', () => {
  const holder = runWith(true);
  test.each(['http/none', 'stdio/none'])('the honest reference client passes blind (%s)', (group) => {
    expectGroup(holder.run, `reference→reference ${group}`, { kind: 'pass' }, SCENARIO_IDS);
  });
  test.each(['http/none', 'stdio/none'])('a client that copies expected answers fails every positive row (%s)', (group) => {
    const failing = Object.fromEntries(POSITIVE.map((id) => [id, ['client fault: client "client-copies-expected" reported an actual result that differs from expected']]));
    expectGroup(holder.run, `reference→client-copies-expected ${group}`, { kind: 'fail-some', failing }, SCENARIO_IDS);
  });
  test.each(['http/none', 'stdio/none'])('a client that answers by scenario id knows no id: every row fails (%s)', (group) => {
    expectGroup(holder.run, `reference→client-branches-on-ids ${group}`, { kind: 'fail-all', needles: ['client fault: client "client-branches-on-ids"'] }, SCENARIO_IDS);
  });
  test.each(['http/none', 'stdio/none'])('the id-branching server knows no opaque id: every invalid row it answered fails, in the new words (%s)', (group) => {
    // Only the schema-valid negative (flow.tool.continue-not-advertised) still passes through: one other.
    const failing = Object.fromEntries(['inject.deliver-at-unknown', UNKNOWN_INVALID].map((id) => [id, replacedNeedles(id, 1)]));
    expectGroup(holder.run, `id-branching→reference ${group}`, { kind: 'fail-some', failing }, SCENARIO_IDS);
  });
});
