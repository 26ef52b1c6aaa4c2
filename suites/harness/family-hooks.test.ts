// The family list's code side (harness/families/family-hooks.ts): every entry's hooks load, a hook is
// asked for by family and name, and asking for one a family does not provide, or a family that does
// not exist, is a harness bug that names what was asked for.

import { describe, expect, test } from 'vitest';

import { FAMILIES } from '../../harness/families/family.ts';
import { familyHooks, requiredHook } from '../../harness/families/family-hooks.ts';
import { FIXTURE_TARGETS } from '../../harness/generate/fixture-targets.ts';
import { failureList, processOutcome } from '../../harness/runs/run-outcome.ts';

describe('family hooks', () => {
  test("every family's hooks.ts loads and answers configuredRows", async () => {
    for (const family of FAMILIES) {
      const hooks = await familyHooks(family.name);
      expect(typeof hooks.configuredRows, `${family.name}/hooks.ts configuredRows`).toBe('function');
    }
  });

  test('the fixture targets are the families\' own, in the family list\'s order', () => {
    expect(FIXTURE_TARGETS.map((target) => target.name)).toEqual(['core', 'lifecycle', 'catalogue', 'elicitation', 'elicitation-inline', 'compaction']);
  });

  test('a provided hook is returned; a missing one names the family file and the hook', async () => {
    expect(typeof (await requiredHook('core', 'verifyClientRun'))).toBe('function');
    expect(typeof (await requiredHook('lifecycle', 'stepScriptVerifier'))).toBe('function');
    await expect(requiredHook('auth', 'verifyClientRun')).rejects.toThrow('harness/families/auth/hooks.ts provides no `verifyClientRun` hook');
  });

  test('an unknown family is refused with the known ones', async () => {
    await expect(familyHooks('no-such-family')).rejects.toThrow(/no family "no-such-family" in harness\/families\/family\.ts \(known: core, lifecycle, catalogue, isolation, elicitation, compaction, auth/);
  });
});

describe('run outcome', () => {
  test('a failure line says its stage; the party is kept only when given', () => {
    const { failures, fail } = failureList();
    fail('run', 'timeout', 'no report within 5 ms');
    fail('spawn', 'enoent', 'no such command', 'client');
    expect(failures).toEqual([
      { stage: 'run', kind: 'timeout', message: 'run: no report within 5 ms' },
      { stage: 'spawn', kind: 'enoent', message: 'spawn: no such command', party: 'client' },
    ]);
  });

  test('an outcome starts with no exit and the time since the run began', () => {
    const outcome = processOutcome(Date.now() - 1000, [], ['client.log']);
    expect(outcome).toMatchObject({ exitCode: null, signal: null, timedOut: false, failures: [], logFiles: ['client.log'] });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1000);
  });
});
