// `check` mode, the offline atomic-effect helper (ELICITATION-RULES §5): a JSON array of rows on
// stdin, one output per row on stdout in input order: `{accepted, summary?, inputUnchanged}`. An
// accepted row's summary is what the SDK would publish: the parsed request, the final MCP result and
// hook provenance naming the argv principal and the applied effect types. It never talks to a
// receiver, and it checks its own promise not to write into a row by comparing the row's JSON text
// before and after staging.

import { cloneJson, isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';
import type { Log } from '../lib/log.ts';
import { exitWith } from '../lib/process-main.ts';
import type { ElicitationBinding } from './binding.ts';
import { validatorsOrExit } from './body-validators.ts';
import { stageRow, type StagedResult } from './atomic-staging.ts';
import { readStdin } from './read-stdin.ts';

export interface CheckFlaws {
  /** Replaces the deep copy taken of each effect before it is applied. */
  snapshot?: <T>(value: T) => T;
  /** true: a rejected row still carries the result staged before the failing effect. */
  publishPartialResult?: boolean;
}

export interface CheckModeOptions {
  schemaDir: string;
  principal: string;
  binding: ElicitationBinding;
  log: Log;
  flaws: CheckFlaws;
}

function summaryOf(staged: StagedResult, principal: string): JsonObject {
  return {
    request: staged.request,
    result: staged.result,
    provenance: { kind: 'hook', authenticatedSource: principal, effects: staged.effects },
    externalCompletion: false,
  };
}

export async function runCheckMode(options: CheckModeOptions): Promise<void> {
  const { log, flaws } = options;
  const validators = validatorsOrExit(log, options.schemaDir, options.binding);
  let rows: unknown;
  try {
    rows = JSON.parse(await readStdin());
  } catch {
    exitWith(log, 2, 'stdin: expected a JSON array of atomic rows');
  }
  if (!Array.isArray(rows)) exitWith(log, 2, 'stdin: expected a JSON array of atomic rows');
  const snapshot = flaws.snapshot ?? cloneJson;
  const outputs = rows.map((row: unknown, index: number) => {
    if (!isJsonObject(row)) {
      log.error(`row ${index}: not an object; rejected`);
      return { accepted: false, inputUnchanged: true };
    }
    const before = JSON.stringify(row);
    const staging = stageRow(row, { binding: options.binding, validators, snapshot });
    const inputUnchanged = JSON.stringify(row) === before;
    if (staging.ok) return { accepted: true, summary: summaryOf(staging.staged, options.principal), inputUnchanged };
    log.info(`row ${index}: rejected (${staging.reason})`);
    if (flaws.publishPartialResult && staging.partial !== undefined) {
      return { accepted: false, summary: summaryOf(staging.partial, options.principal), inputUnchanged };
    }
    return { accepted: false, inputUnchanged };
  });
  process.stdout.write(`${JSON.stringify(outputs)}\n`);
}
