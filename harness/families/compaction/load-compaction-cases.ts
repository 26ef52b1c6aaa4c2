// Reads a compaction case file and refuses it, naming the file, the JSON path and what was
// expected, unless it fits the closed format (fixtures/compaction-case-file.schema.json) and its
// cross-field rules: unique ids, append targets that match their boundary, every expectation equal
// to what the simulator computes from the case's hooks (a hand-edited expectation cannot pass), and
// probes sent under a scope the first exchange of some case uses.

import { jsonEqual } from '../../protocol/json.ts';
import { parseScenarioJson, readScenarioTextSync } from '../../scenarios/load-scenarios.ts';
import { FormatSchema, type FormatProblem } from '../../scenarios/format-schema.ts';
import { indexPath, joinPath } from '../../scenarios/json-path.ts';
import { ScenarioProblemsError } from '../../scenarios/scenario-problems-error.ts';
import { BOUNDARIES, type CompactionCaseFile } from './case-types.ts';
import { SimulationError, simulateCompaction, targetOf } from './simulate.ts';

export const COMPACTION_CASE_FILE_SCHEMA_URL = new URL('../../../fixtures/compaction-case-file.schema.json', import.meta.url);

const FORMAT = new FormatSchema({ url: COMPACTION_CASE_FILE_SCHEMA_URL, family: 'compaction', ops: [] });

export class CompactionCaseFileError extends ScenarioProblemsError {
  override readonly name = 'CompactionCaseFileError';
}

export function loadCompactionCaseFile(file: string): CompactionCaseFile {
  return parseCompactionCaseFile(readScenarioTextSync(file), file);
}

export function parseCompactionCaseFile(text: string, file: string): CompactionCaseFile {
  const value = parseScenarioJson(text, file);
  const problems = lintCompactionCaseFile(value);
  if (problems.length > 0) throw new CompactionCaseFileError(file, problems);
  return value as CompactionCaseFile;
}

export function lintCompactionCaseFile(value: unknown): FormatProblem[] {
  const format = FORMAT.problems(value);
  if (format.length > 0) return format;
  const file = value as CompactionCaseFile;
  const problems: FormatProblem[] = [];
  const ids = new Map<string, string>();
  const firstScopes = new Set<string>();
  file.cases.forEach((row, i) => {
    const at = indexPath('cases', i);
    const earlier = ids.get(row.id);
    if (earlier !== undefined) problems.push({ path: joinPath(at, 'id'), problem: `expected a unique case id, but ${JSON.stringify(row.id)} is also the id of ${earlier}` });
    ids.set(row.id, at);
    let hooksOk = true;
    for (const boundary of BOUNDARIES) {
      row[boundary].forEach((hook, j) => {
        if (hook.action.kind === 'append' && hook.action.target !== targetOf(boundary)) {
          hooksOk = false;
          problems.push({ path: joinPath(joinPath(indexPath(joinPath(at, boundary), j), 'action'), 'target'), problem: `expected "${targetOf(boundary)}" (the text a ${boundary} event carries), got ${JSON.stringify(hook.action.target)}` });
        }
      });
    }
    if (!hooksOk) return;
    try {
      const simulated = simulateCompaction(row);
      if (!jsonEqual(simulated, row.expected)) problems.push({ path: joinPath(at, 'expected'), problem: `expected what the compaction simulator computes from the hooks, ${JSON.stringify(simulated)}` });
      if (simulated.exchanges[0]) firstScopes.add(simulated.exchanges[0].subscription);
    } catch (error) {
      if (!(error instanceof SimulationError)) throw error;
      problems.push({ path: at, problem: `expected a case within the rules' scope: ${error.message}` });
    }
  });
  const probeIds = new Set<string>();
  file.probes.forEach((probe, i) => {
    const at = indexPath('probes', i);
    if (probeIds.has(probe.id) || ids.has(probe.id)) problems.push({ path: joinPath(at, 'id'), problem: `expected a unique id, but ${JSON.stringify(probe.id)} is used before` });
    probeIds.add(probe.id);
    if (!firstScopes.has(probe.subscription)) problems.push({ path: joinPath(at, 'subscription'), problem: `expected the scope of a case's first exchange (${[...firstScopes].join(', ')}), got ${JSON.stringify(probe.subscription)}` });
    const params = (probe.request as { params?: { subscriptionId?: unknown } }).params;
    if (params !== null && typeof params === 'object' && 'subscriptionId' in params) problems.push({ path: joinPath(joinPath(joinPath(at, 'request'), 'params'), 'subscriptionId'), problem: 'expected no subscriptionId (the scope travels in the token or the argv)' });
  });
  return problems;
}
