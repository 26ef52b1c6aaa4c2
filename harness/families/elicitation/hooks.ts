// The elicitation family's hooks (family-hooks.ts): its two fixture files (the upload binding, the
// default, and the inline one) and its configured rows, every case, atomic row and probe of each
// planned directed pair.

import path from 'node:path';

import type { ElicitationBinding } from '../../config/define-config.ts';
import { elicitationCaseFile, projectRoot } from '../../config/load-config.ts';
import type { FixtureTarget } from '../../generate/fixture-target.ts';
import type { FamilyHooks } from '../family-hooks.ts';
import { elicitationRows } from './case-rows.ts';
import type { ElicitationCaseFile } from './case-types.ts';
import { buildElicitationCaseFile, checkElicitationCaseBuild, serializeElicitationCaseFile } from './generate.ts';
import { lintElicitationCaseFile } from './lint-elicitation-case-file.ts';
import { loadElicitationCaseFile } from './load-elicitation-cases.ts';
import { planElicitationPairs } from './pairs.ts';

export const ELICITATION_CASE_FILES: Record<ElicitationBinding, string> = {
  upload: path.join(projectRoot(), 'fixtures', 'elicitation.json'),
  inline: path.join(projectRoot(), 'fixtures', 'elicitation-inline.json'),
};

/** `upload binding: 56 wire cases (13 positive, 43 negative; 85 uploads), 16 atomic rows (6 published), 1 concurrent scenario, 3 probes`. */
function summarizeElicitation(file: ElicitationCaseFile): string {
  const positive = file.cases.filter((wire) => wire.rejectedBy === null).length;
  const uploads = [...file.cases, file.concurrent].flatMap((wire) => wire.steps).filter((step) => step.kind === 'upload').length;
  const published = file.atomic.filter((row) => row.expected.accepted).length;
  return (
    `${file.binding} binding: ${file.cases.length} wire cases (${positive} positive, ${file.cases.length - positive} negative; ${uploads} uploads), ` +
    `${file.atomic.length} atomic rows (${published} published), 1 concurrent scenario, ${file.probes.length} probes`
  );
}

function elicitationTarget(binding: ElicitationBinding): FixtureTarget {
  const file = ELICITATION_CASE_FILES[binding];
  return {
    name: binding === 'upload' ? 'elicitation' : `elicitation-${binding}`,
    file,
    generate() {
      const built = buildElicitationCaseFile(binding);
      const text = serializeElicitationCaseFile(built);
      // The written text must load through the same closed format any case file must pass.
      const format = lintElicitationCaseFile(JSON.parse(text)).map((p) => `${path.relative(projectRoot(), file)}: ${p.path || '(file)'}: ${p.problem}`);
      return { text, problems: [...checkElicitationCaseBuild(built), ...format], summary: summarizeElicitation(built) };
    },
  };
}

export const hooks: FamilyHooks = {
  fixtureTargets: [elicitationTarget('upload'), elicitationTarget('inline')],
  // The grid is directed pairs over http/bearer; the case file always exists by default.
  async configuredRows(config, adapters) {
    const ids = elicitationRows(await loadElicitationCaseFile(elicitationCaseFile(config))).map((row) => row.id);
    return planElicitationPairs(adapters, config.pairings).flatMap((group) => ids.map((id) => ({ project: 'elicitation', group: group.label, id })));
  },
};
