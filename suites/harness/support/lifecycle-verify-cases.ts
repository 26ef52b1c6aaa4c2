// Shared machinery of the lifecycle verifier's self-tests: an honest run to break, the verifier
// called on deep-frozen inputs (so that any write to them throws), and assertions that a failure
// lands on exactly the scenario it belongs to and nowhere else.

import path from 'node:path';

import { expect } from 'vitest';

import type { Transport } from '../../../harness/config/define-config.ts';
import { splitByTransport } from '../../../harness/families/lifecycle/applicability.ts';
import { loadLifecycleScenarioFileSync } from '../../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenario } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../../harness/protocol/canonical-interop.ts';
import { cloneJson, jsonEqual, type JsonObject } from '../../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../../harness/protocol/load-validators.ts';
import type { LifecycleVerification } from '../../../harness/lifecycle-adapters/findings.ts';
import { verifyLifecycleRun } from '../../../harness/families/lifecycle/verify/verify-lifecycle-run.ts';
import { buildHonestRun, deepFreeze, type HonestRunOptions } from './lifecycle-honest-run.ts';
import { labelsByPlace, type VerifierCase } from './verification-labels.ts';

export const validators = loadValidators(path.join(PROJECT_ROOT, 'schemas'));

const canonicalFile = canonicalInteropFile('lifecycle-scenarios.json');
/** The canonical lifecycle rows, or `undefined` when the file is absent (tests then skip). */
export const CANONICAL_ROWS: LifecycleScenario[] | undefined = canonicalFile ? loadLifecycleScenarioFileSync(canonicalFile).scenarios : undefined;
export const CANONICAL_SKIP = `SKIPPED: no lifecycle-scenarios.json in ${canonicalInteropCandidate()}`;

/** One run's evidence, free to be broken before it is verified. */
export type RunCase = VerifierCase<LifecycleScenario>;

/** An honest run of `rows` (the transport's applicable ones when `rows` is the whole file). */
export function honestCase(rows: readonly LifecycleScenario[], transport: Transport, options: Omit<HonestRunOptions, 'transport'> = {}): RunCase {
  const selected = cloneJson(splitByTransport(rows, transport).applicable);
  const run = buildHonestRun(selected, { ...options, transport });
  return {
    rows: selected,
    transport,
    report: run.report,
    receipts: transport === 'stdio' ? run.report.receipts : run.receipts,
    exitCode: run.exitCode,
    clientLanguage: 'typescript',
    entries: run.receipts.entries,
  };
}

/** The verifier on the case, every input deep-frozen first. */
export function verify(c: RunCase): LifecycleVerification {
  return verifyLifecycleRun(
    deepFreeze({ rows: c.rows, transport: c.transport, report: c.report, receipts: c.receipts, exitCode: c.exitCode, clientLanguage: c.clientLanguage, validators }),
  );
}

/** Labels by where they landed: `run` and each scenario that has any. */
export const labels = labelsByPlace;

export function expectClean(v: LifecycleVerification): void {
  expect(labels(v)).toEqual({ run: [], rows: {} });
}

/**
 * `label` fires on scenario `rowId`; no other scenario has a failure and there is no run failure
 * (unless `alsoRun` lists the run failures that must accompany it).
 */
export function expectOnRow(v: LifecycleVerification, rowId: string, label: string, alsoRun: string[] = []): void {
  const found = labels(v);
  expect(found.rows[rowId] ?? [], JSON.stringify(found)).toContain(label);
  expect(Object.keys(found.rows), JSON.stringify(found)).toEqual([rowId]);
  expect([...new Set(found.run)].sort(), JSON.stringify(found)).toEqual([...new Set(alsoRun)].sort());
}

/** `label` is a run failure, and only the scenarios in `touched` (default none) have failures. */
export function expectOnRun(v: LifecycleVerification, label: string, touched: string[] = []): void {
  const found = labels(v);
  expect(found.run, JSON.stringify(found)).toContain(label);
  expect(Object.keys(found.rows).sort(), JSON.stringify(found)).toEqual([...touched].sort());
}

/** The index of the n-th entry (0-based) of `kind` whose fields include `fields`. */
export function entryIndex(entries: readonly JsonObject[], kind: string, fields: JsonObject = {}, n = 0): number {
  const matches = entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.kind === kind && Object.entries(fields).every(([k, value]) => jsonEqual(e[k], value)));
  const found = matches[n];
  if (found === undefined) throw new Error(`no ${kind} entry #${n} with ${JSON.stringify(fields)}`);
  return found.i;
}

export function entryAt(entries: readonly JsonObject[], kind: string, fields: JsonObject = {}, n = 0): JsonObject {
  return entries[entryIndex(entries, kind, fields, n)] as JsonObject;
}

/** Moves the entry at `from` so that it sits right after the entry currently at `after`. */
export function moveAfter(entries: JsonObject[], from: number, after: number): void {
  const [entry] = entries.splice(from, 1);
  entries.splice(from < after ? after : after + 1, 0, entry as JsonObject);
}

/** Moves the entry at `from` so that it sits right before the entry currently at `before`. */
export function moveBefore(entries: JsonObject[], from: number, before: number): void {
  const [entry] = entries.splice(from, 1);
  entries.splice(from < before ? before - 1 : before, 0, entry as JsonObject);
}

export function swap(entries: JsonObject[], i: number, j: number): void {
  const a = entries[i] as JsonObject;
  entries[i] = entries[j] as JsonObject;
  entries[j] = a;
}

/** The result of scenario `id` in the report. */
export function resultOf(c: RunCase, id: string): JsonObject {
  const found = (c.report.results as JsonObject[]).find((r) => r.id === id);
  if (found === undefined) throw new Error(`no result ${id}`);
  return found;
}

/** `message.params.event` of an entry. */
export function eventIn(entry: JsonObject): JsonObject {
  return ((entry.message as JsonObject).params as JsonObject).event as JsonObject;
}

/** Rows of the canonical file by id. */
export function canonicalRow(id: string): LifecycleScenario {
  const row = (CANONICAL_ROWS ?? []).find((r) => r.id === id);
  if (row === undefined) throw new Error(`canonical lifecycle file has no row ${id}`);
  return row;
}
