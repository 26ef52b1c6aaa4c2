// Self-tests of the fuzz machinery that need no processes: the host envelope read from manifests (and
// its deliberate misreadings caught), requests generated inside it, the choice of profile per pairing,
// the shrink time cap, progress lines and the new environment variables.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';

import { buildManifest as referenceManifest, endpointCapabilities } from '../../adapters/reference/lib/manifest.ts';
import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { DEFAULT_FUZZ_SEED } from '../../harness/generate/arbitraries.ts';
import { fuzzCase } from '../../harness/fuzz/case-arbitrary.ts';
import { differentialFuzz } from '../../harness/fuzz/differential.ts';
import {
  EnvelopeError,
  envelopeFromBareCapabilities,
  envelopeFromManifest,
  intersectEnvelopes,
  outsideEnvelope,
  type HostEnvelope,
} from '../../harness/fuzz/host-envelope.ts';
import { fuzzBudget, profileOverride } from '../../harness/fuzz/parameters.ts';
import { EnvelopeUnavailable, isReferenceAdapter, planFuzzGroups } from '../../harness/fuzz/profile-plan.ts';
import { createProgress } from '../../harness/fuzz/progress.ts';
import { fuzzScenario } from '../../harness/fuzz/scenario-rows.ts';
import { inProcessTarget, type FuzzTarget } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import type { InterceptRequest } from '../../harness/protocol/messages.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { buildManifest as strictManifest } from './fixtures/host-strict-common/manifest.ts';
import { evaluate as askLosesToReturn } from './fixtures/buggy-ask-loses-to-return/apply.ts';

const root = projectRoot();
const validators = loadValidators(path.join(root, 'schemas'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-envelope-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const reference = envelopeFromManifest(referenceManifest('none'), 'reference manifest');
const strict = envelopeFromManifest(strictManifest('none'), 'strict manifest');

function manifestWith(events: JsonObject[], extra: JsonObject = {}): JsonObject {
  return { ...referenceManifest('none'), events, ...extra };
}

describe('the host envelope a manifest declares', () => {
  test('the reference manifest: both boundaries, their offers, the continuation limit, no declared tools', () => {
    expect(reference.boundaries['tool.before']).toEqual({
      effects: ['deny', 'allow', 'ask', 'modify', 'inject', 'flow', 'return', 'message'],
      modify: { replace: true, merge: true },
      flow: { operations: ['stop'] },
      inject: { deliverAt: ['now', 'next_turn'] },
    });
    expect(reference.boundaries['turn.finish.before']).toEqual({ effects: ['flow', 'message'], flow: { operations: ['stop', 'continue'], remainingContinuations: 3 } });
    expect(reference.maxContinuations).toBe(3);
    expect(reference.toolPaths).toBeUndefined();
    expect(reference.sources).toEqual(['reference manifest']);
  });

  test('observe-only events, events the generator cannot produce and unusable option blocks are left out, with notes', () => {
    expect(Object.keys(strict.boundaries)).toEqual(['tool.before']);
    expect(strict.notes).toContain('turn.finish.before: not offered in intercept mode');
    const odd = envelopeFromManifest(
      manifestWith([
        { event: 'session.start', modes: ['intercept'], capabilities: { effects: ['deny'] } },
        { event: 'tool.before', modes: ['intercept'], capabilities: { effects: ['deny', 'modify', 'inject', 'flow'], modify: { input: { replace: false, merge: false } }, inject: { context: { append: true, deliverAt: [] } }, flow: { operations: ['continue'] } } },
      ]),
      'odd manifest',
    );
    expect(odd.boundaries['tool.before']).toEqual({ effects: ['deny'] });
    expect(odd.notes).toEqual([
      'session.start: the fuzz generator produces only tool.before and turn.finish.before',
      'tool.before: modify listed without a modify.input operation; not offered',
      'tool.before: inject listed without an inject.context.deliverAt value; not offered',
      'tool.before: flow listed without a flow operation allowed at tool.before; not offered',
    ]);
  });

  test('a manifest that offers nothing to fuzz, or is not a manifest, is an error naming its source and field', () => {
    expect(() => envelopeFromManifest(manifestWith([{ event: 'tool.before', modes: ['observe'] }]), 'sdk-x over http')).toThrow(
      new EnvelopeError('sdk-x over http: offers neither tool.before nor turn.finish.before in intercept mode, so there is nothing to fuzz inside it (tool.before: not offered in intercept mode)'),
    );
    expect(() => envelopeFromManifest({ events: {} }, 'sdk-x')).toThrow(/^sdk-x: manifest\.events: expected an array/);
    expect(() => envelopeFromManifest(manifestWith([{ event: 'tool.before', modes: ['intercept'] }]), 'sdk-x')).toThrow(
      /^sdk-x: manifest\.events\[0\]\.capabilities: expected an object for an intercept event$/,
    );
  });

  test('a bare capability set is assumed at both boundaries, narrowed to what each allows', () => {
    const bare = envelopeFromBareCapabilities(endpointCapabilities('none'), 'GET /capabilities');
    expect(bare.boundaries['tool.before']?.effects).toEqual(reference.boundaries['tool.before']?.effects);
    expect(bare.boundaries['turn.finish.before']).toEqual({ effects: ['flow', 'message'], flow: { operations: ['stop', 'continue'], remainingContinuations: 3 } });
    expect(bare.notes[0]).toMatch(/^bare capability set: events not declared/);
  });

  test('a pairing gets the intersection of both hosts; disjoint tool paths leave tool.before out', () => {
    const both = intersectEnvelopes(reference, strict);
    expect(both.boundaries).toEqual({
      'tool.before': { effects: ['deny', 'allow', 'ask', 'modify', 'flow', 'return', 'message'], modify: { replace: false, merge: true }, flow: { operations: ['stop'] } },
    });
    expect(both.toolPaths).toEqual(['native']);
    expect(both.maxContinuations).toBe(3);
    expect(both.sources).toEqual(['reference manifest', 'strict manifest']);
    const elsewhere = envelopeFromManifest({ ...strictManifest('none'), toolPaths: ['shell'] }, 'shell host');
    expect(() => intersectEnvelopes(strict, elsewhere)).toThrow(/nothing to fuzz inside it.*no tool path in common/);
  });
});

describe('requests generated inside the envelope', () => {
  const envelopes: Array<[string, HostEnvelope]> = [
    ['reference', reference],
    ['strict', strict],
    ['reference ∩ strict', intersectEnvelopes(reference, strict)],
  ];

  test.each(envelopes)('%s: every request is schema-valid and inside; the response side stays unconstrained', (_name, envelope) => {
    const seen = new Set<string>();
    for (const [index, fuzz] of fc.sample(fuzzCase({ name: 'host', envelope }), { seed: DEFAULT_FUZZ_SEED, numRuns: 1500 }).entries()) {
      const row = fuzzScenario(fuzz, `env-${index}`, validators);
      expect(validators.interceptRequest(row.request).valid, JSON.stringify(row.request)).toBe(true);
      expect(outsideEnvelope(envelope, row.request), JSON.stringify(row.request)).toBeUndefined();
      seen.add(row.request.params.event.type);
      const verdict = evaluate(row.request, row.response, validators);
      seen.add(verdict.accepted ? 'accepted' : verdict.layer);
      if (row.request.params.state?.candidate) seen.add('candidate');
      if (row.request.params.capabilities.flow?.operations.includes('continue')) seen.add('continue');
    }
    for (const boundary of Object.keys(envelope.boundaries)) expect(seen).toContain(boundary);
    for (const wanted of ['accepted', 'schema', 'correlation', 'capability', 'candidate']) expect(seen).toContain(wanted);
    if (envelope.boundaries['turn.finish.before']) expect(seen).toContain('continue');
  });

  test('outsideEnvelope catches every way out (deliberately wrong requests)', () => {
    const [inside] = fc.sample(fuzzCase({ name: 'host', envelope: reference }).filter((c) => c.request.params.event.type === 'tool.before'), { seed: 3, numRuns: 1 });
    const base = inside!.request;
    expect(outsideEnvelope(reference, base)).toBeUndefined();
    const variant = (change: (request: InterceptRequest) => void): InterceptRequest => {
      const copy = structuredClone(base);
      change(copy);
      return copy;
    };
    const cases: Array<[HostEnvelope, InterceptRequest, RegExp]> = [
      [strict, variant((r) => { r.params.capabilities = { effects: ['inject'], inject: { context: { append: true, deliverAt: ['now'] } } }; }), /effect type\(s\) inject the host does not offer/],
      [strict, variant((r) => { r.params.capabilities = { effects: ['modify'], modify: { input: { replace: true, merge: false } } }; }), /modify input operation\(s\) replace/],
      [reference, variant((r) => { r.params.capabilities = { effects: ['modify'], modify: { response: { replace: true, merge: true } } }; }), /modify target "response"/],
      [reference, variant((r) => { r.params.capabilities = { effects: ['flow'], flow: { operations: ['stop', 'continue'] } }; }), /flow operation\(s\) continue/],
      [reference, variant((r) => { r.params.capabilities = { effects: ['inject'], inject: { context: { append: true, deliverAt: ['later' as 'now'] } } }; }), /deliverAt later/],
      [strict, variant((r) => { r.params.event.type = 'turn.finish.before'; }), /does not offer "turn\.finish\.before"/],
      [strict, variant((r) => { r.params.event.path = '/tools/shell'; }), /tool path "\/tools\/shell" is not one the host offers/],
      [strict, variant((r) => { r.params.capabilities = { effects: [] }; r.params.state = { permission: 'none', candidate: null, injections: [{ type: 'inject', deliverAt: 'now' }] }; }), /incoming injection/],
      [envelopeFromManifest(manifestWith([{ event: 'tool.before', modes: ['intercept'], capabilities: { effects: ['deny'] } }]), 'deny only'), variant((r) => { r.params.capabilities = { effects: [] }; r.params.state = { permission: 'allow', candidate: null }; }), /incoming permission "allow"/],
    ];
    for (const [envelope, request, reason] of cases) expect(outsideEnvelope(envelope, request)).toMatch(reason);

    const [finish] = fc.sample(fuzzCase({ name: 'host', envelope: reference }).filter((c) => c.request.params.event.type === 'turn.finish.before' && c.request.params.capabilities.flow !== undefined), { seed: 4, numRuns: 1 });
    const over = structuredClone(finish!.request);
    over.params.capabilities.flow = { operations: ['continue'], continuationCount: 2, remainingContinuations: 2 };
    expect(outsideEnvelope(reference, over)).toMatch(/= 4 exceeds the host's maxContinuations 3/);
  });
});

describe('which profile a pairing gets', () => {
  const adapterAt = (name: string, cwd: string): LoadedAdapter => loadAdapter({ name, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
  const ours = adapterAt('reference', path.join(root, 'adapters', 'reference'));
  const sdk = adapterAt('host-strict', path.join(root, 'suites', 'harness', 'fixtures', 'host-strict'));
  const other = adapterAt('host-strict-buggy', path.join(root, 'suites', 'harness', 'fixtures', 'host-strict-buggy'));
  const target = (server: LoadedAdapter, client: LoadedAdapter, transport: 'http' | 'stdio' = 'http'): FuzzTarget => ({
    label: `${server.name}→${client.name} ${transport}/none`,
    pairing: `${server.name}-to-${client.name}`,
    judge: async () => [],
    runs: 0,
    replay: { server, client, transport, schemasDir: path.join(root, 'schemas') },
  });
  const discovery = (envelopes: Record<string, HostEnvelope>): { calls: string[]; envelopeOf: (adapter: LoadedAdapter, transport: string) => Promise<HostEnvelope> } => {
    const calls: string[] = [];
    return {
      calls,
      envelopeOf: async (adapter, transport) => {
        calls.push(`${adapter.name}/${transport}`);
        const found = envelopes[adapter.name];
        if (!found) throw new EnvelopeUnavailable(`no discovery for ${adapter.name}`);
        return found;
      },
    };
  };

  test('the reference adapter is ours; a fixture built on it is not', () => {
    expect(isReferenceAdapter(ours)).toBe(true);
    expect(isReferenceAdapter(sdk)).toBe(false);
  });

  test('reference pairings stay wide without any discovery; other pairings get the intersection of both adapters\' envelopes', async () => {
    const { calls, envelopeOf } = discovery({ 'host-strict': strict, 'host-strict-buggy': strict, reference });
    const plan = await planFuzzGroups([target(ours, ours), target(ours, ours, 'stdio'), target(sdk, sdk), target(ours, sdk), target(sdk, other)], { envelopeOf });
    expect(plan.problems).toEqual([]);
    expect(plan.groups.map((g) => [g.profile.name, g.targets.map((t) => t.label)])).toEqual([
      ['wide', ['reference→reference http/none', 'reference→reference stdio/none']],
      ['host', ['host-strict→host-strict http/none', 'host-strict→host-strict-buggy http/none']],
      // The reference manifest adds its continuation limit to the intersection: another envelope.
      ['host', ['reference→host-strict http/none']],
    ]);
    expect(calls).toEqual(['host-strict/http', 'reference/http', 'host-strict/http', 'host-strict/http', 'host-strict-buggy/http']);
  });

  test('AHP_FUZZ_PROFILE overrides both ways; an envelope that cannot be had leaves the pairing out with the reason', async () => {
    const wide = discovery({});
    const allWide = await planFuzzGroups([target(sdk, sdk)], { override: 'wide', envelopeOf: wide.envelopeOf });
    expect(allWide.groups.map((g) => g.profile.name)).toEqual(['wide']);
    expect(wide.calls).toEqual([]);

    const host = discovery({ reference });
    const allHost = await planFuzzGroups([target(ours, ours), target(sdk, sdk)], { override: 'host', envelopeOf: host.envelopeOf });
    expect(allHost.groups.map((g) => g.profile.name)).toEqual(['host']);
    expect(allHost.problems).toEqual(['host-strict→host-strict http/none left out: no discovery for host-strict']);
  });

  test('AHP_FUZZ_PROFILE and AHP_FUZZ_SHRINK_SECONDS are read, and bad values are refused by name', () => {
    expect(profileOverride({})).toBeUndefined();
    expect(profileOverride({ AHP_FUZZ_PROFILE: ' host ' })).toBe('host');
    expect(() => profileOverride({ AHP_FUZZ_PROFILE: 'narrow' })).toThrow(/^AHP_FUZZ_PROFILE: expected "host" .* or "wide" .*, got "narrow"$/);
    expect(fuzzBudget({ runs: 1, batchSize: 1 }, {}).shrinkSeconds).toBeUndefined();
    expect(fuzzBudget({ runs: 1, batchSize: 1 }, { AHP_FUZZ_SHRINK_SECONDS: '2.5' }).shrinkSeconds).toBe(2.5);
    expect(() => fuzzBudget({ runs: 1, batchSize: 1 }, { AHP_FUZZ_SHRINK_SECONDS: '-1' })).toThrow(/^AHP_FUZZ_SHRINK_SECONDS: expected a non-negative number of seconds, got "-1"$/);
  });
});

describe('shrink budget and progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const find = (shrinkSeconds: number | undefined, progress?: (line: string) => void) =>
    differentialFuzz({
      targets: [inProcessTarget({ apply: askLosesToReturn, validators, name: 'ask-loses' })],
      validators,
      seed: DEFAULT_FUZZ_SEED,
      numRuns: 20,
      batchSize: 60,
      counterexampleDir: mkdtempSync(path.join(tmp, 'capped-')),
      ...(shrinkSeconds === undefined ? {} : { shrinkSeconds }),
      ...(progress ? { progress } : {}),
    });

  test('AHP_FUZZ_SHRINK_SECONDS=0 stops after the round that confirms the failure, and the best case so far is written', async () => {
    const [capped, free] = [await find(0), await find(undefined)];
    const failure = capped.failures[0]!;
    expect(failure.shrink).toMatchObject({ reproduced: true, rounds: 1, minimal: false, stoppedBy: 'stop', capSeconds: 0 });
    expect(existsSync(failure.counterexample.file)).toBe(true);
    expect(capped.message).toContain('time cap AHP_FUZZ_SHRINK_SECONDS=0 reached; the best counterexample so far, not necessarily minimal');
    // Without the cap the same failure shrinks further: the cap is what stopped it.
    expect(free.failures[0]!.shrink.rounds).toBeGreaterThan(1);
    expect(free.failures[0]!.effects).toBeLessThanOrEqual(failure.effects);
  });

  test('progress lines name the batch, every shrink round and the candidates it judged', async () => {
    const lines: string[] = [];
    const report = await find(undefined, (line) => lines.push(line));
    const rounds = report.failures[0]!.shrink.rounds;
    expect(lines[0]).toMatch(/^fuzzing ask-loses in-process: 20 batch\(es\) × 60 case\(s\), seed \d+, profile wide/);
    expect(lines).toContain(`batch 1/20: 60 case(s) × 1 target(s) judged`);
    expect(lines.filter((line) => /^ {2}shrinking ask-loses in-process: round \d+ judged \d+ candidate\(s\) \(\d+ in total\)/.test(line))).toHaveLength(rounds);
  });

  test('a heartbeat is printed whenever nothing was said for the interval, and never after close', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    let clock = 0;
    const progress = createProgress((line) => lines.push(line), { intervalMs: 10_000, now: () => clock });
    progress.say('batch 1/3: judging', 'judging batch 1/3');
    clock = 9_000;
    vi.advanceTimersByTime(9_000);
    expect(lines).toEqual(['batch 1/3: judging']);
    clock = 10_000;
    vi.advanceTimersByTime(1_000);
    expect(lines).toEqual(['batch 1/3: judging', '  … still judging batch 1/3 (10 s)']);
    clock = 15_000;
    vi.advanceTimersByTime(5_000);
    progress.doing('shrinking x: round 2');
    progress.say('  shrinking x: round 1 judged 24 candidate(s)', 'shrinking x after round 1');
    vi.advanceTimersByTime(9_999);
    expect(lines).toHaveLength(3);
    clock = 25_000;
    vi.advanceTimersByTime(1);
    expect(lines[3]).toBe('  … still shrinking x after round 1 (10 s)');
    progress.close();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(4);
  });
});
