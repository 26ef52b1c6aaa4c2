// The compaction family's hooks (family-hooks.ts): its fixture file and its configured rows, every
// case and probe request of each planned pair.

import path from 'node:path';

import { projectRoot } from '../../config/load-config.ts';
import type { FixtureTarget } from '../../generate/fixture-target.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { compactionCaseFile } from './compaction-file.ts';
import { planCompactionPairs } from './compaction-pairs.ts';
import { buildCompactionCases, checkCompactionCaseBuild, serializeCompactionCaseFile, summarizeCompactionCases } from './generate.ts';

export const COMPACTION_CASES_FILE = path.join(projectRoot(), 'fixtures', 'compaction.json');

const FIXTURE: FixtureTarget = {
  name: 'compaction',
  file: COMPACTION_CASES_FILE,
  generate(validators) {
    const file = buildCompactionCases();
    return { text: serializeCompactionCaseFile(file), problems: checkCompactionCaseBuild(file, validators), summary: summarizeCompactionCases(file) };
  },
};

export const hooks: FamilyHooks = {
  fixtureTargets: [FIXTURE],
  async configuredRows(config, adapters) {
    const file = compactionCaseFile(config);
    const ids = [...file.cases, ...file.probes].map((row) => row.id);
    return planCompactionPairs(adapters, config.transports, config.pairings ?? undefined).flatMap((group) =>
      ids.map((id) => ({ project: 'compaction', group: group.label, id })),
    );
  },
};
