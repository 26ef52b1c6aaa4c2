// Blind mode in the elicitation family (harness/families/elicitation/blind-cases.ts): what a pair's
// processes see carries no case name anywhere — not in event ids, sessions, item ids or local refs —
// while the bodies are byte for byte the same; the verdicts come back under the real ids; and the
// honest reference pair still passes on the blinded file (so the renaming keeps every case intact).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { blindRun } from '../../harness/families/elicitation/blind-cases.ts';
import type { ElicitationCaseFile } from '../../harness/families/elicitation/case-types.ts';
import { loadElicitationCaseFileSync } from '../../harness/families/elicitation/load-elicitation-cases.ts';
import { planElicitationPairs } from '../../harness/families/elicitation/pairs.ts';
import { runElicitationPair } from '../../harness/families/elicitation/run.ts';
import { PROJECT_ROOT, referenceAdapter } from './support/child-vitest-run.ts';

const FILE = loadElicitationCaseFileSync(path.join(PROJECT_ROOT, 'fixtures', 'elicitation.json'));

/** Every case name a sender could branch on: test ids and the `<name>` of every event id. */
function caseNames(file: ElicitationCaseFile): Set<string> {
  const names = new Set<string>();
  for (const wire of [...file.cases, file.concurrent]) {
    names.add(wire.id);
    for (const step of wire.steps) if (step.kind === 'intercept') names.add(step.eventId.split(':')[0]!);
  }
  for (const row of file.atomic) names.add(row.name);
  return names;
}

test('the blinded file names no case anywhere, and keeps every body byte for byte', () => {
  const blind = blindRun(FILE);
  const text = JSON.stringify({ cases: blind.file.cases, concurrent: blind.file.concurrent, atomic: blind.file.atomic.map((row) => row.input) });
  for (const name of caseNames(FILE)) {
    expect(text, `case name ${name}`).not.toContain(`"${name}"`);
    expect(text, `case name ${name}`).not.toContain(`"${name}:`);
  }
  const bytes = (file: ElicitationCaseFile): string[] => file.cases.flatMap((wire) => wire.steps.flatMap((step) => (step.kind === 'upload' ? [step.bytes] : [])));
  expect(bytes(blind.file)).toEqual(bytes(FILE));
  // Fresh names per pair run: two runs share none.
  const other = blindRun(FILE);
  expect([...other.opaqueId.values()].some((id) => [...blind.opaqueId.values()].includes(id))).toBe(false);
});

test('a blinded reference pair passes, its verdicts under the real case ids', { timeout: 240_000 }, async () => {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-selftest-elicitation-blind-'));
  try {
    const entry = referenceAdapter();
    const reference = loadAdapter({ ...entry, adapterFile: path.join(entry.cwd, 'interop', 'adapter.json') });
    const [group] = planElicitationPairs(new Map([[reference.name, reference]]), null);
    const ids = ['form-accept-selected-complete-bytes', 'correlation-body-wrong-parent', 'atomic/before-deny'];
    const blind = blindRun(FILE);
    const result = await runElicitationPair(group!, ids.map((id) => blind.opaqueId.get(id)!), {
      file: blind.file,
      schemaDir: path.join(PROJECT_ROOT, 'schemas'),
      runDir,
      logDir: path.join(runDir, 'logs'),
      watchdogs: { startupMs: 20_000, runMs: 30_000 },
    });
    const back = new Map([...result.rows].map(([id, outcome]) => [blind.originalId.get(id), blind.reveal(outcome)]));
    expect([...back.keys()].sort()).toEqual([...ids].sort());
    for (const [id, outcome] of back) expect(outcome.verdict, `${id}: ${outcome.reason}`).toBe('passed');
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});
