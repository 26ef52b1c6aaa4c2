// The inline binding end to end through the REAL `elicitation` project: a child vitest with an
// AHP_CONFIG temp config that sets `elicitation: { binding: 'inline' }` and names no case file, so
// the binding alone must pick fixtures/elicitation-inline.json, against the reference adapter. To stay
// cheap it selects (`-t`) the cases that exist only in the inline file (the analogues of the
// upload-only ones), the first shared wire case and one atomic row; each must pass, nothing else may
// run, and the report must count the pair as passed. The default (upload) binding is what the
// `elicitation` project itself runs.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, expect, test } from 'vitest';

import type { ElicitationCaseFile } from '../../harness/families/elicitation/case-types.ts';
import { PROJECT_ROOT, referenceAdapter, runVitestChild, type ChildRun, type ChildRunDirs, HONEST_WATCHDOGS } from './support/child-vitest-run.ts';

const CHILD_TIMEOUT_MS = 120_000;
const PAIR = 'reference→reference http/bearer';

function caseFile(name: string): ElicitationCaseFile {
  return JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'fixtures', name), 'utf8')) as ElicitationCaseFile;
}

const inline = caseFile('elicitation-inline.json');
const uploadIds = new Set(caseFile('elicitation.json').cases.map((wire) => wire.id));
const SELECTED = [...inline.cases.filter((wire) => !uploadIds.has(wire.id)).map((wire) => wire.id), inline.cases[0]!.id, inline.atomic[0]!.id];

let dirs: ChildRunDirs;
let run: ChildRun;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-selftest-elicitation-inline-'));
  dirs = { dir, configFile: path.join(dir, 'config.json'), scenarioFile: '', lifecycleScenarioFile: '', catalogueScenarioFile: '', reportsDir: path.join(dir, 'reports'), pidDir: dir };
  writeFileSync(
    dirs.configFile,
    JSON.stringify({ schemas: path.join(PROJECT_ROOT, 'schemas'), adapters: [referenceAdapter()], elicitation: { binding: 'inline' }, reports: dirs.reportsDir, watchdogs: HONEST_WATCHDOGS }),
  );
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  run = await runVitestChild(dirs, 'elicitation', CHILD_TIMEOUT_MS, { args: ['-t', `${escape(PAIR)} (?:${SELECTED.map(escape).join('|')})$`] });
}, CHILD_TIMEOUT_MS + 10_000);

afterAll(() => rmSync(dirs.dir, { recursive: true, force: true }));

test('the inline file has cases of its own to select (the analogues of the upload-only cases)', () => {
  expect(SELECTED.length).toBeGreaterThan(2);
});

test('every selected inline case passes against the reference adapter, and only those run', () => {
  expect(run.timedOut, run.output.slice(-3000)).toBe(false);
  const ran = run.rows.filter((row) => row.status !== 'pending' && row.status !== 'skipped');
  expect(ran.map((row) => row.title).sort(), run.output.slice(-3000)).toEqual([...new Set(SELECTED)].sort());
  for (const row of ran) expect(row.status, `${row.fullName}: ${row.failureMessages.join('\n')}`).toBe('passed');
  expect(run.exitCode, run.output.slice(-3000)).toBe(0);
});

test("the report counts the pair as passed in the runner's shape", () => {
  const report = JSON.parse(readFileSync(path.join(dirs.reportsDir, 'elicitation.json'), 'utf8')) as { transport: string; authentication: string; passed: number; total: number; results: Array<{ sender: string; receiver: string; status: string }> };
  expect(report).toMatchObject({ transport: 'http', authentication: 'bearer', passed: 1, total: 1 });
  expect(report.results).toMatchObject([{ sender: 'reference', receiver: 'reference', status: 'passed' }]);
});
