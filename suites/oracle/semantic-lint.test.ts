// The oracle project's semantic audit: every configured scenario file (core, lifecycle, catalogue;
// ours by default, the protocol's own files through AHP_CONFIG) is linted against the spec's MUSTs
// on what it makes a client send. One test per row, named by its id, whose failure lists each
// broken rule with the file, the row and the JSON path.

import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { loadConfig } from '../../harness/config/load-config.ts';
import { isJsonObject } from '../../harness/protocol/json.ts';
import { formatSemanticProblem, lintScenarioFileSemantics, type SemanticProblem } from '../../harness/protocol/semantic-lint/scenario-file-lint.ts';

const config = await loadConfig();

// The compaction case file is not in the central format: its cases carry receiver actions, not
// requests, and its only requests are the rejection probe's, invalid by design.
const files = await Promise.all(
  Object.entries(config.scenarios).filter(([suite]) => suite !== 'compaction').map(async ([suite, file]) => {
    const name = path.relative(config.dir, file) || file;
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    const rows = isJsonObject(parsed) && Array.isArray(parsed.scenarios) ? parsed.scenarios : [];
    const rowNames = rows.map((row, i) => (isJsonObject(row) && typeof row.id === 'string' && row.id !== '' ? row.id : `scenarios[${i}]`));
    const byRow = new Map<string, SemanticProblem[]>();
    for (const problem of lintScenarioFileSemantics(parsed, name)) byRow.set(problem.row, [...(byRow.get(problem.row) ?? []), problem]);
    return { label: `${suite}: ${name}`, rowNames, byRow };
  }),
);

describe.each(files.map((f) => [f.label, f] as const))('semantic lint › %s', (_label, { rowNames, byRow }) => {
  test('has at least one row', () => {
    expect(rowNames.length).toBeGreaterThan(0);
  });
  test.each(rowNames.map((name) => [name] as const))('%s', (name) => {
    const problems = byRow.get(name) ?? [];
    if (problems.length > 0) expect.fail(`${problems.length} MUST(s) of the spec broken by what this row sends:\n  ${problems.map(formatSemanticProblem).join('\n  ')}`);
    expect(problems).toEqual([]);
  });
});
