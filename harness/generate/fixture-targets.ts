// The files `npm run fixtures` generates, each with how to build, check and summarize it. The CLI
// (fixtures-cli.ts) and the generator tests share this list, so one command regenerates or checks
// every generated fixture file and the tests compare exactly what the command writes.

import path from 'node:path';

import type { CatalogueScenarioFile } from '../families/catalogue/scenario-types.ts';
import { projectRoot } from '../config/load-config.ts';
import { deriveContentSources } from '../families/lifecycle/content-sources.ts';
import type { LifecycleScenarioFile } from '../families/lifecycle/scenario-types.ts';
import { formatSemanticProblem, lintScenarioFileSemantics } from '../protocol/semantic-lint/scenario-file-lint.ts';
import type { ProtocolValidators } from '../protocol/validator-types.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import { NEGATIVE_TAGS, type ScenarioFile } from '../scenarios/types.ts';
import { checkGeneratedFile } from './check-generated.ts';
import { CATALOGUE_COVERAGE } from '../families/catalogue/coverage.ts';
import { buildCatalogueScenarios, checkCatalogueScenarioBuild, serializeCatalogueScenarioFile } from '../families/catalogue/generate.ts';
import { buildCoreScenarios } from '../families/core/generate.ts';
import type { ElicitationBinding, ElicitationCaseFile } from '../families/elicitation/case-types.ts';
import { buildElicitationCaseFile, checkElicitationCaseBuild, serializeElicitationCaseFile } from '../families/elicitation/generate.ts';
import { lintElicitationCaseFile } from '../families/elicitation/lint-elicitation-case-file.ts';
import { LIFECYCLE_COVERAGE } from '../families/lifecycle/coverage.ts';
import { buildLifecycleScenarios, checkLifecycleScenarioBuild, serializeLifecycleScenarioFile } from '../families/lifecycle/generate.ts';
import { catalogueRowRequirements, coreRowRequirements, lifecycleRowRequirements, withRequirements } from '../requirements/row-requirements.ts';

type GeneratorValidators = Pick<ProtocolValidators, 'interceptRequest' | 'interceptResponse' | 'observeNotification' | 'registration'>;

/** One freshly generated file: its text, the problems the generator's own checks found, a one-line summary. */
export interface GeneratedText {
  text: string;
  problems: string[];
  summary: string;
}

export interface FixtureTarget {
  /** Short name for messages (`core`, `lifecycle`). */
  name: string;
  /** Absolute path of the committed file. */
  file: string;
  generate(validators: GeneratorValidators): GeneratedText;
}

export const CORE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'scenarios.json');
export const LIFECYCLE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'lifecycle-scenarios.json');
export const CATALOGUE_SCENARIOS_FILE = path.join(projectRoot(), 'fixtures', 'catalogue-scenarios.json');
export const ELICITATION_CASE_FILES: Record<ElicitationBinding, string> = {
  upload: path.join(projectRoot(), 'fixtures', 'elicitation.json'),
  inline: path.join(projectRoot(), 'fixtures', 'elicitation-inline.json'),
};

/**
 * The semantic lint of the text about to be written (parsed back, so it sees exactly the file), one
 * line per broken MUST naming file, row, JSON path and rule: a generator that produces a row breaking
 * the spec fails `npm run fixtures` and `--check` instead of failing an SDK later.
 */
function semanticProblems(text: string, file: string): string[] {
  return lintScenarioFileSemantics(JSON.parse(text), path.relative(projectRoot(), file)).map(formatSemanticProblem);
}

/** `12 rows: 5 positive, 7 negative (schema-invalid 3, correlation-invalid 1, ...)`. */
function summarizeCore(file: ScenarioFile): string {
  const counts = new Map<string, number>(NEGATIVE_TAGS.map((tag) => [tag, 0]));
  let positives = 0;
  for (const row of file.scenarios) {
    if (row.expectError === true) {
      for (const tag of row.tags ?? []) if (counts.has(tag)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    } else positives++;
  }
  const negatives = file.scenarios.length - positives;
  const perTag = [...counts].map(([tag, n]) => `${tag} ${n}`).join(', ');
  return `${file.scenarios.length} rows: ${positives} positive, ${negatives} negative (${perTag})`;
}

/** `34 rows: 24 step scripts (3 http only, 2 stdio only), 10 chains; 14 content sources; 41 coverage items`. */
function summarizeLifecycle(file: LifecycleScenarioFile): string {
  const chains = file.scenarios.filter((row) => row.chain !== undefined).length;
  const only = (transport: string) => file.scenarios.filter((row) => row.transports?.length === 1 && row.transports[0] === transport).length;
  const sources = deriveContentSources(file.scenarios).length;
  return (
    `${file.scenarios.length} rows: ${file.scenarios.length - chains} step scripts (${only('http')} http only, ${only('stdio')} stdio only), ` +
    `${chains} chains; ${sources} content sources; ${LIFECYCLE_COVERAGE.length} coverage items`
  );
}

/** `47 rows: execution 21, lineage 13, registration 13; 34 accepted, 3 lineage and 2 schema rejections; 13 registrations (4 accepted); 60 coverage items`. */
function summarizeCatalogue(file: CatalogueScenarioFile): string {
  const count = (category: string) => file.scenarios.filter((row) => row.category === category).length;
  const deliveries = file.scenarios.flatMap((row) => row.expected.deliveries);
  const registrations = file.scenarios.flatMap((row) => row.expected.registrations);
  const rejected = (kind: string) => deliveries.filter((d) => d.errorKind === kind).length;
  return (
    `${file.scenarios.length} rows: execution ${count('execution')}, lineage ${count('lineage')}, registration ${count('registration')}; ` +
    `${deliveries.filter((d) => d.accepted).length} accepted, ${rejected('lineage')} lineage and ${rejected('schema')} schema rejections; ` +
    `${registrations.length} registrations (${registrations.filter((r) => r.accepted).length} accepted); ${CATALOGUE_COVERAGE.length} coverage items`
  );
}

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

export const FIXTURE_TARGETS: readonly FixtureTarget[] = [
  {
    name: 'core',
    file: CORE_SCENARIOS_FILE,
    generate(validators) {
      const file = withRequirements(buildCoreScenarios(validators), coreRowRequirements);
      const text = serializeScenarioFile(file);
      return { text, problems: [...checkGeneratedFile(file, validators), ...semanticProblems(text, CORE_SCENARIOS_FILE)], summary: summarizeCore(file) };
    },
  },
  {
    name: 'lifecycle',
    file: LIFECYCLE_SCENARIOS_FILE,
    generate(validators) {
      const file = withRequirements(buildLifecycleScenarios(validators), lifecycleRowRequirements);
      const text = serializeLifecycleScenarioFile(file);
      return { text, problems: [...checkLifecycleScenarioBuild(file, validators), ...semanticProblems(text, LIFECYCLE_SCENARIOS_FILE)], summary: summarizeLifecycle(file) };
    },
  },
  {
    name: 'catalogue',
    file: CATALOGUE_SCENARIOS_FILE,
    generate(validators) {
      const file = withRequirements(buildCatalogueScenarios(validators), catalogueRowRequirements);
      const text = serializeCatalogueScenarioFile(file);
      return { text, problems: [...checkCatalogueScenarioBuild(file, validators), ...semanticProblems(text, CATALOGUE_SCENARIOS_FILE)], summary: summarizeCatalogue(file) };
    },
  },
  elicitationTarget('upload'),
  elicitationTarget('inline'),
];
