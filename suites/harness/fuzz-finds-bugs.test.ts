// The fuzz machinery must find real bugs: three deliberately buggy variants of the reference client
// (suites/harness/fixtures/buggy-*: the real client with its apply step swapped through one module
// seam) are fuzzed with a fixed seed within a CI budget, paired with the reference server over HTTP.
// For each: a disagreement is found, shrunk to a counterexample of at most three effects, written
// as a lint-clean one-scenario file (to a temp dir, never the checkout) whose expectation is the
// oracle's, and replaying that file fails against the buggy pairing but passes the reference one.
// The in-process pre-check finds each bug too, from the variant's apply step alone.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { stopAll } from '../../harness/adapters/supervise.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { loadConfig, projectRoot } from '../../harness/config/load-config.ts';
import { DEFAULT_FUZZ_SEED } from '../../harness/generate/arbitraries.ts';
import { differentialFuzz } from '../../harness/fuzz/differential.ts';
import { inProcessTarget, processTarget, type ApplyStep } from '../../harness/fuzz/targets.ts';
import { evaluate } from '../../harness/oracle/evaluate.ts';
import { isJsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import { lintOwnScenarioFile } from '../../harness/scenarios/lint-scenario-file.ts';
import { loadScenarioFileSync } from '../../harness/scenarios/load-scenarios.ts';
import { evaluate as mergeDeletesNull } from './fixtures/buggy-merge-deletes-null/apply.ts';
import { evaluate as askLosesToReturn } from './fixtures/buggy-ask-loses-to-return/apply.ts';
import { evaluate as continuePerEffect } from './fixtures/buggy-continue-per-effect/apply.ts';

const root = projectRoot();
const config = await loadConfig({ file: path.join(root, 'adapters.config.ts') });
const validators = loadValidators(config.schemas);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-fuzz-bugs-'));
const watchdogs = { startupMs: 30_000, runMs: 120_000 };

/** Fixed, whatever AHP_FUZZ_SEED says: this test asserts what THIS seed finds within the budget. */
const SEED = DEFAULT_FUZZ_SEED;
const BUDGET = { numRuns: 6, batchSize: 60 };
const SHRINK = { maxRounds: 14 };

function adapterAt(name: string, cwd: string): LoadedAdapter {
  return loadAdapter({ name, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
}

const reference = adapterAt('reference', path.join(root, 'adapters', 'reference'));

interface Variant {
  name: string;
  apply: ApplyStep;
  /** The result key the bug corrupts (it must show in the minimal diff). */
  key: string;
}

const VARIANTS: Variant[] = [
  { name: 'buggy-merge-deletes-null', apply: mergeDeletesNull, key: 'input' },
  { name: 'buggy-ask-loses-to-return', apply: askLosesToReturn, key: 'decision' },
  { name: 'buggy-continue-per-effect', apply: continuePerEffect, key: 'continuationRemaining' },
];

afterAll(async () => {
  await stopAll(1000);
  rmSync(tmp, { recursive: true, force: true });
});

describe('in process: fuzzing finds each buggy apply step (no processes)', () => {
  test.each(VARIANTS)('$name: the in-process pre-check finds it from the apply step alone', async ({ name, apply, key }) => {
    const dir = path.join(tmp, `${name}-in-process`);
    const report = await differentialFuzz({
      targets: [inProcessTarget({ apply, validators, name })],
      validators,
      seed: SEED,
      numRuns: 20,
      batchSize: 60,
      counterexampleDir: dir,
    });
    expect(report.ok, report.message).toBe(false);
    const failure = report.failures[0]!;
    expect(failure.effects).toBeLessThanOrEqual(3);
    expect(failure.reason).toContain(key);
    expect(path.dirname(failure.counterexample.file)).toBe(dir);
  });
});

// The process variants run concurrently (each is mostly waiting for its client runs).
describe.concurrent('through processes: fuzzing finds each buggy reference-client variant', () => {
  test.each(VARIANTS)('$name: shrunk counterexample (≤ 3 effects) fails only the buggy pairing', async ({ name, key }) => {
    const buggy = adapterAt(name, path.join(root, 'suites', 'harness', 'fixtures', name));
    const workDir = path.join(tmp, name);
    const dir = path.join(tmp, `${name}-counterexamples`);
    const target = processTarget({ server: reference, client: buggy, transport: 'http', schemasDir: config.schemas, watchdogs, workDir });

    const report = await differentialFuzz({ targets: [target], validators, seed: SEED, ...BUDGET, counterexampleDir: dir, shrink: SHRINK });
    expect(report.ok, `no disagreement found for ${name} within ${BUDGET.numRuns} batches:\n${report.message}`).toBe(false);
    expect(report.error, report.message).toBeUndefined();
    expect(report.failures).toHaveLength(1);
    const failure = report.failures[0]!;
    expect(failure.shrink.reproduced, report.message).toBe(true);
    const s = failure.shrink;
    console.log(
      `${name}: found in batch ${failure.batch} (${report.batchMs} ms of batch runs); shrunk to ${failure.effects} effect(s) in ` +
        `${s.steps} steps, ${s.rounds} rounds, ${s.clientRuns} client runs, ${s.ms} ms`,
    );

    // The message reproduces: seed, file, replay command, minimal diff.
    const written = failure.counterexample;
    expect(report.message).toContain(`AHP_FUZZ_SEED=${SEED}`);
    expect(report.message).toContain(written.file);
    expect(report.message).toContain(`AHP_CONFIG=${written.configFile}`);
    expect(report.message).toContain(key);

    // Written to the configured dir (a temp dir here), as a lint-clean one-scenario central file.
    expect(path.dirname(written.file)).toBe(dir);
    expect(path.basename(written.file)).toMatch(new RegExp(`^reference-to-${name}-http-[0-9a-f]{12}\\.json$`));
    expect(existsSync(written.file)).toBe(true);
    const file = loadScenarioFileSync(written.file);
    expect(lintOwnScenarioFile(file)).toEqual([]);
    expect(file.scenarios).toHaveLength(1);
    const row = file.scenarios[0]!;
    const response = row.response;
    const effects = isJsonObject(response) && isJsonObject(response.result) ? response.result.effects : undefined;
    expect(Array.isArray(effects), 'counterexample response has an effects array').toBe(true);
    expect((effects as unknown[]).length, JSON.stringify(row, null, 2)).toBeLessThanOrEqual(3);
    expect(failure.effects).toBe((effects as unknown[]).length);

    // The expectation is the oracle's.
    const verdict = evaluate(row.request, row.response, validators);
    if (verdict.accepted) {
      expect(row.expected).toEqual(verdict.result);
      expect(row.expectError).toBeUndefined();
    } else {
      expect(row.expectError).toBe(true);
      expect(row.tags).toContain(`${verdict.layer}-invalid`);
    }

    // The replay config is a valid config for exactly this pairing.
    const replayConfig = await loadConfig({ file: written.configFile! });
    expect(replayConfig.scenarios.core).toBe(written.file);
    expect(replayConfig.pairings).toEqual([{ server: 'reference', client: name }]);
    expect(replayConfig.transports).toEqual(['http']);

    // Replay: the buggy pairing fails the file, the reference pairing passes it.
    const replayBuggy = processTarget({ server: reference, client: buggy, transport: 'http', schemasDir: config.schemas, watchdogs, workDir });
    const replayReference = processTarget({ server: reference, client: reference, transport: 'http', schemasDir: config.schemas, watchdogs, workDir });
    const [buggyVerdicts, referenceVerdicts] = await Promise.all([replayBuggy.judge(file.scenarios), replayReference.judge(file.scenarios)]);
    expect(buggyVerdicts[0]!.failed, 'replay against the buggy pairing must fail').toBe(true);
    expect(buggyVerdicts[0]!.reason).toContain(key);
    expect(referenceVerdicts[0]!.failed, referenceVerdicts[0]!.reason).toBe(false);
  }, 170_000);

});
