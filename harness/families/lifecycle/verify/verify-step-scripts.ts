// Step script rows (LIFECYCLE-RULES §7.1 (2)–(8), then §7.2–§7.7), in the runner's order. The
// "(stop)" checks — a report of the wrong type or language, malformed results, a missing or
// malformed receipt log, malformed confirmations — end the verification of these rows: everything
// after them would only repeat the damage.

import type { Transport } from '../../../config/define-config.ts';
import { isJsonObject, type JsonObject } from '../../../protocol/json.ts';
import { describeValue } from '../../../protocol/json-text.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import { deriveContentSources } from '../../../lifecycle-adapters/content-sources.ts';
import { RECEIPT_KINDS, isChainScenario, type LifecycleScenario, type StepScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { checkConfirmations } from './content-confirmations.ts';
import { EntryOwners } from './entry-owners.ts';
import { expectedDeliveries } from './expected-deliveries.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { checkMultiplicity } from './multiplicity-checks.ts';
import { checkObservations } from './observation-checks.ts';
import { checkOrder } from './order-checks.ts';
import { describeEntry, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import { STEP_RESULT_LABELS, checkResults } from './report-checks.ts';
import type { ReportShape } from '../../../lifecycle-adapters/report-shape.ts';
import { checkRequests } from './request-checks.ts';
import { planRow } from './row-plan.ts';
import { checkUploads } from './upload-checks.ts';

export interface StepScriptInput {
  /** The rows of this part: every selected row, or only the step scripts once chains are split off. */
  rows: readonly LifecycleScenario[];
  report: unknown;
  shape: ReportShape;
  /** The receipt log of this part, or why there is none. */
  log: { entries: LogEntry[] } | { problem: string };
  clientLanguage: string;
  transport: Transport;
  validators: Pick<ProtocolValidators, 'interceptRequest' | 'observeNotification' | 'contentUploadReceipt'>;
}

export function verifyStepScripts(input: StepScriptInput, findings: Findings): void {
  // §7.1 (2), (3)
  const { report, shape } = input;
  if (isJsonObject(report) && report.language !== input.clientLanguage) {
    findings.run(LABEL.wrongReport, 'client', `report.language is ${describeValue(report.language)}, expected ${JSON.stringify(input.clientLanguage)} (the client adapter's language)`);
    return;
  }
  if (!shape.ok) {
    findings.run(shape.label, 'client', shape.message);
    return;
  }
  // (4)–(6)
  checkResults(input.rows, shape.results, findings, STEP_RESULT_LABELS);
  // (7)
  if ('problem' in input.log) {
    findings.run(LABEL.malformedReceipts, receiptParty(input), `${input.log.problem} (${input.transport === 'http' ? "the receiver's GET /receipts" : 'report.receipts, forwarded by the stdio client'})`);
    return;
  }
  const entries = input.log.entries;
  const owners = new EntryOwners(input.rows);
  // (8)
  for (const e of entries) {
    if (e.kind !== undefined && (RECEIPT_KINDS as readonly string[]).includes(e.kind)) continue;
    findings.rowOrRun(owners.ownerOf(e), LABEL.unknownKind, 'client or server', `${describeEntry(e)}: kind ${describeValue(e.entry.kind)} is not one of ${RECEIPT_KINDS.join(', ')}`);
  }

  // After a split only step scripts are left; without one, a chain row here means the input was
  // malformed, and the stops above have already ended the verification.
  const rows = input.rows.filter((row): row is StepScenario => !isChainScenario(row));
  const plans = rows.map(planRow);
  checkMultiplicity(plans, entries, owners, findings); // §7.2
  const confirmed = checkConfirmations((shape.report as JsonObject).contentUploads, entries, owners, input.validators, findings); // §7.3
  if (confirmed === undefined) return;
  const uploads = checkUploads(plans, entries, confirmed.consumedUploads, findings); // §7.4 (18)–(21)
  // Rows come from the lifecycle loader, whose lint already derived these sources without error.
  const deliveries = expectedDeliveries(plans, uploads, confirmed.confirmations, deriveContentSources(rows), findings); // §7.4 (22)
  checkRequests(deliveries, entries, owners, input.validators, findings); // §7.5
  checkObservations(plans, deliveries, entries, owners, input.validators, findings); // §7.6
  checkOrder(plans, entries, owners, findings); // §7.7
}

/**
 * Over HTTP the harness reads the log from the receiver; over stdio the client forwards it in its
 * report (§6), so a missing log there is the client's and a malformed one may be either's.
 */
function receiptParty(input: StepScriptInput): 'client' | 'server' | 'client or server' {
  if (input.transport === 'http') return 'server';
  return isJsonObject(input.report) && input.report.receipts === undefined ? 'client' : 'client or server';
}
