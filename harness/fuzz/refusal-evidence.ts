// Evidence of a refused batch that outlives the run: the run folders the refusal search kept (the
// whole batch's and the smallest refused set's: scenario file, server and client configs, logs) are
// copied out of the temp work dir into the counterexample folder, the run-failure lines are rewritten
// to point at the copies, and the smallest refused set is written as a replayable scenario file.
//
//   <dir>/<pairing>-refused-<hash>/batch/     the whole batch's run folder
//   <dir>/<pairing>-refused-<hash>/smallest/  the smallest set's run folder (absent when it is the batch)
//   <dir>/<pairing>-refused-<hash>.json       the smallest refused set (+ .config.json to replay it)
//
// Nothing with credentials is in these folders: fuzz runs use auth mode `none`.

import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';

import type { Scenario } from '../scenarios/types.ts';
import { describedRow, oneLine, profileSentence, scenariosHash, writeScenarioSet } from './counterexample-file.ts';
import type { FuzzProfile } from './host-envelope.ts';
import { discardRefusal } from './refusal-search.ts';
import type { FuzzTarget } from './targets.ts';
import type { Refusal } from './triage.ts';

export interface PersistedRefusal {
  /** Folder holding `batch/` (and `smallest/`). */
  evidenceDir: string;
  /** The smallest set's run faults, pointing at the copies. */
  integrity: string[];
  /** The whole batch's run faults, pointing at the copies. */
  batchIntegrity: string[];
  /** The smallest refused set as a scenario file, and its replay config. */
  file: string;
  configFile?: string;
}

export function persistRefusal(options: {
  dir: string;
  target: FuzzTarget;
  scenarios: Scenario[];
  refusal: Refusal;
  seed: number;
  batch: number;
  profile: FuzzProfile;
}): PersistedRefusal {
  const { dir, target, refusal } = options;
  const smallest = options.scenarios.filter((s) => refusal.smallest.includes(s.id));
  const name = `${target.pairing}-refused-${scenariosHash(smallest)}`;
  const evidenceDir = path.join(dir, name);
  rmSync(evidenceDir, { recursive: true, force: true });
  const moves: Array<[from: string, to: string]> = [];
  const { batch, smallest: smallestRun } = refusal.evidence;
  if (batch !== undefined) moves.push([batch, path.join(evidenceDir, 'batch')]);
  if (smallestRun !== undefined && smallestRun !== batch) moves.push([smallestRun, path.join(evidenceDir, 'smallest')]);
  for (const [from, to] of moves) cpSync(from, to, { recursive: true });
  discardRefusal(refusal);
  const relocate = (line: string): string => moves.reduce((text, [from, to]) => text.split(from).join(to), line);

  const integrity = refusal.integrity.map(relocate);
  const description =
    `Smallest scenario set the adapter refused as a whole, found by differential fuzzing against ${target.label} ` +
    `(AHP_FUZZ_SEED=${options.seed}, batch ${options.batch}): ${oneLine(integrity.join(' '))}. ` +
    `Evidence (batch file, configs, logs): ${evidenceDir}. ${profileSentence(options.profile)} The expectation is the oracle's.`;
  const rows = smallest.map((scenario) => describedRow(scenario, description));
  const written = writeScenarioSet(dir, name, rows, target);
  return { evidenceDir, integrity, batchIntegrity: refusal.batchIntegrity.map(relocate), ...written };
}
