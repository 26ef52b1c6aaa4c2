// Builds our catalogue scenario file (fixtures/catalogue-scenarios.json) from the row specs of
// catalogue-execution-rows.ts, catalogue-lineage-rows.ts and catalogue-registration-rows.ts, and checks
// a built file.
//
// Deterministic: no randomness, clock or paths. `expected.sent` is exactly the rows' messages;
// `registrations` come from the SDK-local registration evaluator against our reference manifest and
// `deliveries` from one receiver lineage tracker over the whole file in order — the same pure code the
// reference adapter runs, never hand-written outcomes.

import { CATALOGUE_EVENT_TYPES, LINEAGE_EVENT_TYPES } from './catalogue-events.ts';
import { evaluateRegistration } from './evaluate-registration.ts';
import { itemNamespaceProblems, itemRoleProblems } from './item-roles.ts';
import { LineageTracker } from './lineage-tracker.ts';
import { catalogueRunnabilityProblems } from './catalogue-runnability.ts';
import { checkCatalogueScenarioFile } from './load-catalogue-scenarios.ts';
import { buildCatalogueManifest } from './reference-manifest.ts';
import { sentMessages, type CatalogueScenario, type CatalogueScenarioFile } from './scenario-types.ts';
import { jsonEqual, type JsonObject } from '../../protocol/json.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';
import { serializeScenarioFile } from '../../scenarios/load-scenarios.ts';
import { describeRunnabilityProblem } from '../../scenarios/runnability.ts';
import { coverageProblems, eventObject, type DeliveryEvidence, type RowEvidence } from './coverage.ts';
import { executionRowSpecs, healthyAfterRejectionsRow } from './generate-execution-rows.ts';
import { lineageRowSpecs } from './generate-lineage-rows.ts';
import { registrationRowSpecs } from './generate-registration-rows.ts';
import type { CatalogueRowSpec } from './wire.ts';

export type CatalogueGeneratorValidators = Pick<ProtocolValidators, 'observeNotification' | 'registration'>;

/** Row specs in file order: every rejecting row precedes the row that shows the receiver recovered. */
export function catalogueRowSpecs(): CatalogueRowSpec[] {
  return [...executionRowSpecs(), ...lineageRowSpecs(), healthyAfterRejectionsRow(), ...registrationRowSpecs()];
}

/**
 * What an honest run does with every row, in file order: each sent message through one receiver
 * lineage tracker, each registration through the evaluator against the reference manifest.
 */
export function evaluateCatalogueRows(rows: ReadonlyArray<Pick<CatalogueScenario, 'id' | 'steps'> & Partial<CatalogueScenario>>, validators: CatalogueGeneratorValidators): RowEvidence[] {
  const tracker = new LineageTracker(validators);
  const manifest = buildCatalogueManifest();
  const earlier: DeliveryEvidence[] = [];
  return rows.map((row) => {
    const deliveries: DeliveryEvidence[] = [];
    const registrations: RowEvidence['registrations'] = [];
    for (const step of row.steps) {
      if (step.op === 'register') {
        registrations.push({ step, evaluation: evaluateRegistration({ registration: step.registration, manifest, requirements: step.requirements, context: step.context }, validators) });
      } else {
        deliveries.push({ op: step.op, message: step.message, event: eventObject(step.message), verdict: tracker.accept(step.message) });
      }
    }
    const evidence: RowEvidence = { row: row as CatalogueScenario, deliveries, registrations, earlier: [...earlier] };
    earlier.push(...deliveries);
    return evidence;
  });
}

function expectedOf(evidence: RowEvidence): CatalogueScenario['expected'] {
  return {
    sent: evidence.deliveries.map((d) => d.message),
    registrations: evidence.registrations.map((r) => ({ accepted: r.evaluation.accepted })),
    deliveries: evidence.deliveries.map((d) => (d.verdict.accepted ? { accepted: true, errorKind: null } : { accepted: false, errorKind: d.verdict.errorKind })),
  };
}

/** The catalogue scenario file; `--check` reproduces it byte for byte. */
export function buildCatalogueScenarios(validators: CatalogueGeneratorValidators): CatalogueScenarioFile {
  const specs = catalogueRowSpecs();
  const evidence = evaluateCatalogueRows(specs, validators);
  const scenarios = specs.map(
    (spec, i): CatalogueScenario => ({
      id: spec.id,
      category: spec.category,
      description: spec.description,
      tags: spec.tags,
      steps: spec.steps,
      expected: expectedOf(evidence[i]!),
      requests: {},
      responses: {},
    }),
  );
  return { version: 1, suite: 'catalogue', scenarios };
}

export function serializeCatalogueScenarioFile(file: CatalogueScenarioFile): string {
  return serializeScenarioFile(file);
}

// ----- checks of a built file ----------------------------------------------------------------------

const GENERATED_FILE = 'fixtures/catalogue-scenarios.json (generated)';

/** Tags whose rows reuse an event identity on purpose. */
const IDENTITY_REUSE_TAGS = ['lineage:rule-3-retry', 'lineage:rule-3-type-changed', 'lineage:rule-3-parent-changed', 'lineage:rule-3-task-changed', 'lineage:rule-7-identity-free'];

/**
 * Every problem of a generated catalogue file, one line each (`<row id>: <problem>`); empty when it is
 * publishable: it loads through the catalogue loader; every row is runnable under the client duties
 * (catalogue-runnability.ts); every row has a description and tags; each row's
 * `expected` is what the tracker and evaluator compute; a notify message is schema-valid and accepted
 * (the SDK's public path would send it); categories follow the steps and event types; item ids are
 * namespaced by row and keep one role per source; an event identity is reused only by rows that prove
 * reuse; and every coverage item has a tagged row whose witness holds.
 */
export function checkCatalogueScenarioBuild(file: CatalogueScenarioFile, validators: CatalogueGeneratorValidators): string[] {
  const problems: string[] = [];
  try {
    checkCatalogueScenarioFile(JSON.parse(serializeCatalogueScenarioFile(file)), GENERATED_FILE);
  } catch (error) {
    return [`format: ${error instanceof Error ? error.message : String(error)}`];
  }
  for (const problem of catalogueRunnabilityProblems(file)) problems.push(`${problem.row}: runnability: ${describeRunnabilityProblem(GENERATED_FILE, problem)}`);
  const evidence = evaluateCatalogueRows(file.scenarios, validators);
  const identities = new Map<string, string>();
  for (const e of evidence) {
    const { row } = e;
    const add = (problem: string): void => {
      problems.push(`${row.id}: ${problem}`);
    };
    if (row.description === undefined) add('has no description');
    if ((row.tags ?? []).length === 0) add('has no tags');
    const computed = expectedOf(e);
    if (!jsonEqual(row.expected, computed)) add(`expected differs from what the tracker and evaluator compute: ${JSON.stringify(computed)}`);
    if (!jsonEqual(row.expected.sent, sentMessages(row))) add('expected.sent is not exactly the messages of its steps');
    e.deliveries.forEach((d, k) => {
      if (d.op !== 'notify') return;
      const schema = validators.observeNotification(d.message);
      if (!schema.valid) add(`sent[${k}] goes through the SDK (notify) but is not schema-valid: ${schema.errors.slice(0, 2).join('; ')}`);
      else if (!d.verdict.accepted) add(`sent[${k}] goes through the SDK (notify) but the receiver rejects it (${d.verdict.reason}); use rawNotify`);
    });
    for (const problem of categoryProblems(row, e)) add(problem);
    const reuses = (row.tags ?? []).some((tag) => IDENTITY_REUSE_TAGS.includes(tag));
    for (const d of e.deliveries) {
      if (d.event === undefined || typeof d.event.id !== 'string') continue;
      const key = JSON.stringify([d.event.source, d.event.id]);
      const owner = identities.get(key);
      if (owner !== undefined && !reuses) add(`event ${JSON.stringify(d.event.id)} of ${JSON.stringify(d.event.source)} was already sent by ${owner}`);
      if (owner === undefined) identities.set(key, row.id);
    }
  }
  problems.push(...itemRoleProblems(file.scenarios), ...itemNamespaceProblems(file.scenarios));
  problems.push(...coverageProblems(evidence));
  return problems;
}

/** Registration rows only register; the other rows only send, execution rows execution types, lineage rows lineage types. */
function categoryProblems(row: CatalogueScenario, evidence: RowEvidence): string[] {
  if (row.category === 'registration') {
    return evidence.deliveries.length > 0 || evidence.registrations.length !== 1 ? ['a registration row has exactly one register step and sends nothing'] : [];
  }
  if (evidence.registrations.length > 0 || evidence.deliveries.length === 0) return [`an ${row.category} row sends messages and registers nothing`];
  const lineageTypes: readonly string[] = LINEAGE_EVENT_TYPES;
  const types = evidence.deliveries.map((d) => d.event?.type).filter((t): t is string => typeof t === 'string' && CATALOGUE_EVENT_TYPES.includes(t));
  const wrong = types.filter((t) => lineageTypes.includes(t) !== (row.category === 'lineage'));
  return wrong.length > 0 ? [`a ${row.category} row sends ${wrong.join(', ')}`] : [];
}

/** The messages of a file for schema audits: `<row id> › sent[k]`. */
export function catalogueMessages(file: CatalogueScenarioFile): Array<{ name: string; message: JsonObject; delivery: CatalogueScenario['expected']['deliveries'][number] | undefined }> {
  return file.scenarios.flatMap((row) => row.expected.sent.map((message, k) => ({ name: `${row.id} › sent[${k}]`, message, delivery: row.expected.deliveries[k] })));
}
