// One directed elicitation pair, end to end (ELICITATION-RULES §8): the pair's commands prepared, fresh
// tokens, one receiver, the sender's atomic helper once, the unauthenticated probe, then the sender's
// client once per step — each plan built from what the pair confirmed so far — and the receiver's
// receipts; the pure verifier turns that evidence into one verdict per selected case. Only the steps
// of the selected cases run (plus what they depend on: the helper for published rows). The receiver's
// process group ends on every path; each one-shot process's group ends before the next starts.

import { appendFileSync, mkdtempSync } from 'node:fs';
import path from 'node:path';

import { familyEnvironment } from '../../adapters/family-command.ts';
import { safeLabel } from '../../adapters/file-name-part.ts';
import type { MatrixGroup } from '../../runs/plan.ts';
import { redactSecrets } from '../../runs/redact-secrets.ts';
import type { GroupRunResult, RowOutcome } from '../../setup/grouped-suite.ts';
import type { CheckFailure, ElicitationCaseFile, PairEvidence, PairVerdict, ProcessOutcome } from './case-types.ts';
import { drivePair } from './drive-pair.ts';
import { fetchReceipts } from './harness-receipts.ts';
import { keepRedactedLogs } from './kept-logs.ts';
import { runOneShot } from './one-shot-process.ts';
import { commandNotes, preparePairCommands, resolvePairCommands, type PairCommands } from './pair-commands.ts';
import { freshPairTokens, pairEnvironment, secretValues } from './pair-tokens.ts';
import { toProcessOutcome } from './process-outcome.ts';
import { RECEIVER_LABELS, startReceiver } from './receiver-process.ts';
import { verifyElicitationPair } from './verify/verify-pair.ts';

/** The rules' bounds (§10); a config with shorter watchdogs shortens them. */
export const STEP_TIMEOUT_MS = 30_000;
export const ATOMIC_TIMEOUT_MS = 45_000;
const STEP_TAIL_CHARS = 1500;
const ATOMIC_TAIL_CHARS = 1000;

export interface ElicitationRunOptions {
  file: ElicitationCaseFile;
  schemaDir: string;
  /** The run's temp dir: each pair gets a folder inside, and Go builds are cached in it. */
  runDir: string;
  /** `reports/logs`: a failed pair's redacted logs are kept under `elicitation/<pair>`. */
  logDir: string;
  watchdogs: { startupMs: number; runMs: number };
}

/** What a pair run measured besides its verdicts (the report's counts, the bench's cost split). */
export interface PairMeasures {
  scenarios: number;
  concurrentRequests: number;
  atomicPublications: number;
  wireOperations: number;
  acceptedReceipts: number;
  /** Sender processes started (steps, the probe, the helper) and their summed wall time. */
  senderRuns: number;
  senderProcessMs: number;
  pairMs: number;
}

export async function runElicitationPair(group: MatrixGroup, selectedIds: readonly string[], options: ElicitationRunOptions): Promise<GroupRunResult> {
  const started = Date.now();
  const sender = group.client;
  const receiver = group.server;
  const resolved = resolvePairCommands(sender, receiver);
  if (!resolved.ok) throw new Error(`harness bug: ${group.label} was planned runnable, but ${resolved.reason}`);
  const dir = mkdtempSync(path.join(options.runDir, `${safeLabel(group.label)}-`));
  const pairLog = path.join(dir, 'pair.log');
  const prepared = await preparePairCommands(resolved.commands, path.join(options.runDir, 'go-builds'));
  if (!prepared.ok) return allFailed(selectedIds, prepared.reason, 'command preparation failed', Date.now() - started);
  const commands = prepared.commands;
  const notes = commandNotes(commands);
  for (const note of notes) appendFileSync(pairLog, `${note}\n`);
  // Where a command came from is worth a line in the run's output too: it is not the adapter.json's word.
  if (notes.length > 0) process.stderr.write(notes.map((note) => `${group.label}: ${note}\n`).join(''));

  const tokens = freshPairTokens();
  const secrets = secretValues(tokens);
  const env = pairEnvironment(tokens, familyEnvironment([sender, receiver]), options.file.binding);
  const principal = `authenticated:${sender.manifest.language}`;
  const stepMs = Math.min(STEP_TIMEOUT_MS, options.watchdogs.runMs);
  const measures: PairMeasures = { scenarios: 0, concurrentRequests: 0, atomicPublications: 0, wireOperations: 0, acceptedReceipts: 0, senderRuns: 0, senderProcessMs: 0, pairMs: 0 };
  const senderLog = path.join(dir, 'sender.log');

  const start = await startReceiver({ argv: commands.receiver.argv, cwd: commands.receiver.cwd, env, schemaDir: options.schemaDir, principal, dir, startupMs: options.watchdogs.startupMs, secrets });
  const logs = [pairLog, start.ok ? start.receiver.stderrFile : start.stderrFile, senderLog];
  let evidence: PairEvidence;
  if (!start.ok) {
    const stderrTail = start.error.startsWith(`${RECEIVER_LABELS.failed}: `) ? start.error.slice(RECEIVER_LABELS.failed.length + 2) : '';
    evidence = { sender: sender.name, receiver: receiver.name, principal, startup: { ok: false, kind: start.error === RECEIVER_LABELS.timedOut ? 'timeout' : 'failed', stderrTail }, steps: [] };
  } else {
    const endpoint = start.receiver.endpoint;
    const context: SenderContext = { commands, env, dir, secrets, senderLog, measures };
    try {
      evidence = await drivePair(
        { file: options.file, selected: new Set(selectedIds), sender: sender.name, receiver: receiver.name, principal, secrets: { endpoint, token: tokens.eventToken, uploadToken: tokens.uploadToken } },
        {
          runAtomicHelper: (rows) => runSender(context, 'atomic helper', ['check', options.schemaDir, principal], rows, Math.min(ATOMIC_TIMEOUT_MS, options.watchdogs.runMs), ATOMIC_TAIL_CHARS),
          runClient: async (plan, origin) => {
            measures.wireOperations++;
            // The final read of what the receiver recorded is the harness's own (harness-receipts.ts).
            if (origin === null && plan.token === tokens.eventToken && plan.steps[0].path === '/receipts') return fetchReceipts(endpoint, tokens.eventToken, stepMs);
            return runSender(context, origin === null ? 'unauthenticated probe' : `${origin.caseId} step ${origin.step}`, ['client'], plan, stepMs, STEP_TAIL_CHARS);
          },
        },
      );
    } finally {
      await start.receiver.stop();
    }
    countEntries(evidence, options.file, measures);
  }
  const verdict = verifyElicitationPair(evidence, options.file, { selection: selectedIds });
  measures.pairMs = Date.now() - started;
  appendFileSync(pairLog, `${measures.senderRuns} sender processes, ${measures.senderProcessMs} ms of ${measures.pairMs} ms in them\n`);
  return outcomes(group, selectedIds, verdict, { measures, notes, logs, secrets, logDir: options.logDir });
}

interface SenderContext {
  commands: PairCommands;
  env: Record<string, string>;
  dir: string;
  secrets: string[];
  senderLog: string;
  measures: PairMeasures;
}

/** One sender process (helper, probe or step) on the same three files, its stderr appended to the sender log. */
async function runSender(context: SenderContext, name: string, mode: string[], input: unknown, timeoutMs: number, tailChars: number): Promise<ProcessOutcome> {
  const command = context.commands.sender;
  const outcome = await runOneShot({ argv: [...command.argv, ...mode], cwd: command.cwd, env: context.env, input, dir: context.dir, name: 'sender', timeoutMs });
  context.measures.senderRuns++;
  context.measures.senderProcessMs += outcome.durationMs;
  const stderrFile = path.join(context.dir, 'sender.stderr');
  const result = toProcessOutcome(outcome, stderrFile, tailChars, context.secrets);
  const ended = result.kind === 'timeout' ? `timed out after ${result.timeoutMs} ms` : `exit ${result.exitCode ?? result.signal}`;
  appendFileSync(context.senderLog, `--- ${name}: ${ended}\n${result.stderrTail === '' ? '' : `${result.stderrTail}\n`}`);
  return result;
}

/** The report's counts of what the pair ran (rules §11): entries with wire steps, published rows, receipts. */
function countEntries(evidence: PairEvidence, file: ElicitationCaseFile, measures: PairMeasures): void {
  const ran = new Set(evidence.steps.map((step) => step.caseId));
  const atomicIds = new Set(file.atomic.map((row) => row.id));
  const probeIds = new Set(file.probes.map((probe) => probe.id));
  measures.scenarios = [...ran].filter((id) => !probeIds.has(id)).length;
  measures.atomicPublications = [...ran].filter((id) => atomicIds.has(id)).length;
  measures.concurrentRequests = ran.has(file.concurrent.id) ? 2 : 0;
  measures.acceptedReceipts = evidence.receipts ? receiptCount(evidence.receipts) : 0;
}

function receiptCount(outcome: ProcessOutcome): number {
  if (outcome.kind !== 'exited') return 0;
  try {
    const [result] = JSON.parse(outcome.stdout) as Array<{ body?: unknown }>;
    const receipts: unknown = typeof result?.body === 'string' ? JSON.parse(result.body) : undefined;
    return Array.isArray(receipts) ? receipts.length : 0;
  } catch {
    return 0;
  }
}

/** `[label] party: evidence` lines, the form every family's failure message takes. */
function describeFailures(failures: readonly CheckFailure[], secrets: readonly string[]): string {
  return failures.map((failure) => redactSecrets(`[${failure.label}] ${failure.party}: ${failure.evidence}`, secrets)).join('\n');
}

function outcomes(
  group: MatrixGroup,
  selectedIds: readonly string[],
  verdict: PairVerdict,
  run: { measures: PairMeasures; notes: string[]; logs: string[]; secrets: string[]; logDir: string },
): GroupRunResult {
  const rows = new Map<string, RowOutcome>();
  const details = { pair: run.measures, ...(run.notes.length > 0 ? { commandNotes: run.notes } : {}) };
  let anyFailed = false;
  for (const id of selectedIds) {
    const own = verdict.cases.get(id);
    const failures = [...(own?.failures ?? []), ...verdict.pairFaults];
    if (!own && verdict.pairFaults.length === 0) throw new Error(`harness bug: the verifier gave no verdict for ${group.label} › ${id}`);
    const passed = own?.status === 'passed' && verdict.pairFaults.length === 0;
    anyFailed ||= !passed;
    rows.set(id, {
      verdict: passed ? 'passed' : 'failed',
      reason: passed ? '' : describeFailures(failures, run.secrets) || `${id} did not run`,
      adapterStatus: own?.status ?? 'not-run',
      actual: null,
      errors: [...new Set(failures.map((failure) => failure.label))],
      details,
    });
  }
  const keptLogs = anyFailed ? keepRedactedLogs(run.logs, path.join(run.logDir, 'elicitation', safeLabel(group.label)), run.secrets) : [];
  return { rows, keptLogs, durationMs: run.measures.pairMs };
}

function allFailed(selectedIds: readonly string[], reason: string, label: string, durationMs: number): GroupRunResult {
  const rows = new Map<string, RowOutcome>();
  for (const id of selectedIds) rows.set(id, { verdict: 'failed', reason, adapterStatus: 'not-run', actual: null, errors: [label] });
  return { rows, keptLogs: [], durationMs };
}
