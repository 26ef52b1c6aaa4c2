// The catalogue verifier's entry point (CATALOGUE-RULES §6): a pure function from one client run's
// evidence — its report, the receiver's receipt log, its exit code — to the failures of the run and
// of each selected row, in §6's order and with its verbatim labels. No processes, no I/O; the
// validators come in compiled. Same result shape as the lifecycle verifier.
//
// Attribution: a failure that belongs to one row (its result, its delivery evidence, a broken
// expectation of the fixture) goes to that row; the client's exit, the report's and the log's shape and
// the one discovery belong to the run. Where §6 stops ("(stop)"), so does this.

import type { Transport } from '../../../config/define-config.ts';
import type { CatalogueScenario } from '../scenario-types.ts';
import type { JsonObject } from '../../../protocol/json.ts';
import { Findings, type LifecycleVerification } from '../../../lifecycle-adapters/findings.ts';
import { clientExitLabel, clientExitProblem } from '../../../lifecycle-adapters/labels.ts';
import { readReceiptLog } from '../../../lifecycle-adapters/receipt-log.ts';
import { checkDiscovery, type DiscoveryValidators } from './discovery-checks.ts';
import { checkEvidence, expectedEvidence, type EvidenceValidators } from './evidence-checks.ts';
import { CATALOGUE_LABEL } from './labels.ts';
import { checkCatalogueResults, readCatalogueReport } from './report-checks.ts';

/** `{runFailures, rows}` of checks, exactly as the lifecycle verifier returns them. */
export type CatalogueVerification = LifecycleVerification;

export type CatalogueValidators = DiscoveryValidators & EvidenceValidators;

export interface CatalogueVerifyInput {
  /** Exactly the rows this run selected, in file order (lineage and receipts follow it). */
  rows: readonly CatalogueScenario[];
  transport: Transport;
  /** The client's parsed report; `undefined` when missing or unparseable (the caller records why). */
  report: unknown;
  /** The receipt log `{entries:[...]}`: HTTP from the receiver's GET /receipts, stdio from report.receipts. */
  receipts: unknown;
  exitCode: number | null;
  /** The `language` of the client's adapter.json. */
  clientLanguage: string;
  validators: CatalogueValidators;
}

export function verifyCatalogueRun(input: CatalogueVerifyInput): CatalogueVerification {
  const findings = new Findings(input.rows.map((row) => row.id));
  // (1)
  const exitProblem = clientExitProblem(input.exitCode);
  if (exitProblem !== undefined) findings.run(clientExitLabel(input.exitCode), 'client', exitProblem);
  // (2), (3)
  const read = readCatalogueReport(input.report, input.clientLanguage, findings);
  if (read === undefined) return findings.verification();
  // (4), (5)
  checkCatalogueResults(input.rows, read.results, findings);
  // (6)
  const entries = receiptEntries(input.receipts, input.transport, findings);
  if (entries === undefined) return findings.verification();
  // (7)–(11)
  checkDiscovery(entries, read.report, input.validators, findings);
  // (12), (13)
  checkEvidence(entries, expectedEvidence(input.rows, input.validators, findings), input.rows, findings);
  return findings.verification();
}

function receiptEntries(receipts: unknown, transport: Transport, findings: Findings): JsonObject[] | undefined {
  const from = transport === 'stdio' ? 'report.receipts' : "the receiver's GET /receipts";
  // Over stdio the client copies the child's log into its report; over HTTP the harness reads it.
  const party = transport === 'stdio' ? 'client' : 'server';
  const log = readReceiptLog(receipts, { log: from, expected: '{entries: [...]}', entries: `${from}.entries`, list: 'a list' });
  if ('problem' in log) {
    findings.run(CATALOGUE_LABEL.missingReceipts, party, log.problem);
    return undefined;
  }
  return log.entries.map(({ entry }) => entry);
}
