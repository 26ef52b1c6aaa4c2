// The lifecycle verifier's entry point (LIFECYCLE-RULES §7): a pure function from one client run's
// evidence — its report, the receiver's receipt log, its exit code — to the failures of the run and
// of each selected scenario. No processes, no I/O, and the validators come in compiled.
//
// §7.0: when the selection has observation chain rows and the report and log are well-formed, chain
// results and the entries of chain request/event ids are judged by §7.8 and the rest by §7.1–§7.7;
// a malformed report or log is not split and fails in §7.1.
//
// §13 decisions: the receipt log is whatever the caller read — over HTTP the receiver's
// `GET /receipts` (a `receipts` key in the report is ignored), over stdio `report.receipts`;
// `unsupported`/`inapplicable` statuses (CONTRACT.md) are not passes; a `view` or any other kind
// outside §6 fails; content upload confirmations are read from the top of the report; the control
// proofs the docs omit (`emitted`, and the `acquired`/`discarded`/`chain-settled` marks) are required
// exactly as the runner requires them.

import type { Transport } from '../../../config/define-config.ts';
import type { ProtocolValidators } from '../../../protocol/validator-types.ts';
import { isChainScenario, type LifecycleScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import { Findings, type LifecycleVerification } from '../../../lifecycle-adapters/findings.ts';
import { clientExitLabel, clientExitProblem } from '../../../lifecycle-adapters/labels.ts';
import { readReceiptLog, type LogEntry } from '../../../lifecycle-adapters/receipt-log.ts';
import { readReportShape, type IndexedResult } from '../../../lifecycle-adapters/report-shape.ts';
import { chainEntryKey, chainRowKeys, verifyChains } from './verify-chains.ts';
import { verifyStepScripts } from './verify-step-scripts.ts';
import type { ScriptVerifier } from '../../../lifecycle-adapters/runner.ts';

export type LifecycleValidators = Pick<ProtocolValidators, 'interceptRequest' | 'observeNotification' | 'contentUploadReceipt'>;

export interface LifecycleVerifyInput {
  /** Exactly the rows this run selected (already transport-filtered). */
  rows: LifecycleScenario[];
  transport: Transport;
  /** The client's parsed report; `undefined` when missing or unparseable (the caller records why). */
  report: unknown;
  /** The receipt log `{entries:[...]}`: HTTP from the receiver's GET /receipts, stdio from report.receipts. */
  receipts: unknown;
  exitCode: number | null;
  /** The `language` of the client's adapter.json. */
  clientLanguage: string;
  validators: LifecycleValidators;
}

export function verifyLifecycleRun(input: LifecycleVerifyInput): LifecycleVerification {
  const findings = new Findings(input.rows.map((row) => row.id));
  // §7.1 (1)
  const exitProblem = clientExitProblem(input.exitCode);
  if (exitProblem !== undefined) findings.run(clientExitLabel(input.exitCode), 'client', exitProblem);

  const shape = readReportShape(input.report);
  const log = readReceiptLog(input.receipts);
  const common = { report: input.report, clientLanguage: input.clientLanguage, transport: input.transport, validators: input.validators };
  const chainRows = input.rows.filter(isChainScenario);
  if (chainRows.length === 0 || !shape.ok || 'problem' in log) {
    verifyStepScripts({ ...common, rows: input.rows, shape, log }, findings);
    return findings.verification();
  }

  // §7.0 split
  const chainIds = new Set(chainRows.map((row) => row.id));
  const chainKeys = new Set(chainRows.flatMap((row) => [...chainRowKeys(row)]));
  const isChainResult = (r: IndexedResult): boolean => typeof r.result.id === 'string' && chainIds.has(r.result.id);
  const isChainEntry = (e: LogEntry): boolean => {
    const key = chainEntryKey(e);
    return key !== undefined && chainKeys.has(key);
  };
  verifyStepScripts(
    {
      ...common,
      rows: input.rows.filter((row) => !isChainScenario(row)),
      shape: { ...shape, results: shape.results.filter((r) => !isChainResult(r)) },
      log: { entries: log.entries.filter((e) => !isChainEntry(e)) },
    },
    findings,
  );
  const wrongLanguage = shape.report.language !== input.clientLanguage;
  const clientFailure = [exitProblem, wrongLanguage ? `report.language is ${JSON.stringify(shape.report.language ?? null)}, expected ${JSON.stringify(input.clientLanguage)}` : undefined].filter((p) => p !== undefined);
  verifyChains(
    {
      rows: chainRows,
      results: shape.results.filter(isChainResult),
      entries: log.entries.filter(isChainEntry),
      clientFailure: clientFailure.length > 0 ? clientFailure.join('; ') : undefined,
      validators: input.validators,
    },
    findings,
  );
  return findings.verification();
}

/** The lifecycle verifier as the lifecycle-adapter runner's ScriptVerifier. */
export function lifecycleVerifier(validators: LifecycleValidators): ScriptVerifier<LifecycleScenario> {
  return (evidence) => verifyLifecycleRun({ ...evidence, validators });
}
