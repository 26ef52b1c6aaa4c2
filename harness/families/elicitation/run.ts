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
import type { CheckFailure, ElicitationCaseFile, PairEvidence, PairVerdict, ProcessOutcome, StepEvidence, WireCase, WireStep } from './case-types.ts';
import { fetchReceipts } from './harness-receipts.ts';
import { keepRedactedLogs } from './kept-logs.ts';
import { runOneShot } from './one-shot-process.ts';
import { commandNotes, preparePairCommands, resolvePairCommands, type PairCommands } from './pair-commands.ts';
import { freshPairTokens, pairEnvironment, secretValues, type PairTokens } from './pair-tokens.ts';
import { atomicHelperInput, pairSchedule, PairLedger, publishedCases } from './plan-steps.ts';
import { toProcessOutcome } from './process-outcome.ts';
import { startReceiver } from './receiver-process.ts';
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
  const selected = new Set(selectedIds);
  const evidence: PairEvidence = { sender: sender.name, receiver: receiver.name, principal, startup: { ok: true }, steps: [] };
  const measures: PairMeasures = { scenarios: 0, concurrentRequests: 0, atomicPublications: 0, wireOperations: 0, acceptedReceipts: 0, senderRuns: 0, senderProcessMs: 0, pairMs: 0 };
  const senderLog = path.join(dir, 'sender.log');

  const start = await startReceiver({ argv: commands.receiver.argv, cwd: commands.receiver.cwd, env, schemaDir: options.schemaDir, principal, dir, startupMs: options.watchdogs.startupMs, secrets });
  const logs = [pairLog, start.ok ? start.receiver.stderrFile : start.stderrFile, senderLog];
  let verdict: PairVerdict;
  let published: WireCase[] = [];
  if (!start.ok) {
    evidence.startup = { ok: false, kind: start.error.startsWith('receiver startup timed out') ? 'timeout' : 'failed', stderrTail: start.error };
    verdict = verifyElicitationPair(evidence, options.file);
  } else {
    const endpoint = start.receiver.endpoint;
    try {
      const sender1 = { commands, env, dir, secrets, senderLog, measures };
      const atomicIds = new Set(options.file.atomic.map((row) => row.id));
      if ([...selected].some((id) => atomicIds.has(id))) {
        evidence.atomic = await runSender(sender1, 'atomic', ['check', options.schemaDir, principal], atomicHelperInput(options.file.atomic), Math.min(ATOMIC_TIMEOUT_MS, options.watchdogs.runMs), ATOMIC_TAIL_CHARS);
        published = publishedCases(options.file, evidence.atomic).filter((wire) => selected.has(wire.id));
      }
      const unauthenticated = options.file.probes.find((probe) => probe.kind === 'unauthenticated-receipts');
      if (unauthenticated && selected.has(unauthenticated.id)) {
        evidence.unauthenticatedProbe = await runSender(sender1, 'probe', ['client'], { endpoint, token: 'wrong', steps: [{ path: '/receipts', bytes: '' }] }, stepMs, STEP_TAIL_CHARS);
        measures.wireOperations++;
      }
      await transmit(evidence, { ...sender1, endpoint, tokens, stepMs, file: options.file, selected, published });
      if (evidence.steps.length > 0) {
        evidence.receipts = await fetchReceipts(endpoint, tokens.eventToken, stepMs);
        measures.wireOperations++;
        measures.acceptedReceipts = receiptCount(evidence.receipts);
      }
    } finally {
      await start.receiver.stop();
    }
    verdict = verifyElicitationPair(evidence, options.file, published);
  }
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
  appendFileSync(context.senderLog, `--- ${name}: ${ended}\n${result.stderrTail === '' ? '' : `${redactSecrets(result.stderrTail, context.secrets)}\n`}`);
  return result;
}

/**
 * The selected cases' steps one at a time (§8 step 5), each planned from the confirmations before it;
 * once a step of a case fails its check, the rest of that case is not sent (a result is never sent
 * after its request failed, an intercept never after its upload failed).
 */
async function transmit(
  evidence: PairEvidence,
  context: SenderContext & { endpoint: string; tokens: PairTokens; stepMs: number; file: ElicitationCaseFile; selected: Set<string>; published: WireCase[] },
): Promise<void> {
  const ledger = new PairLedger(context.file.binding);
  const stopped = new Set<string>();
  const entries = new Map<string, { steps: WireStep[] }>();
  for (const entry of [...context.file.cases, context.file.concurrent, ...context.published, ...context.file.probes.flatMap((probe) => (probe.kind === 'upload' ? [probe] : []))]) entries.set(entry.id, entry);
  const ran = new Set<string>();
  for (const origin of pairSchedule(context.file, context.selected, context.published)) {
    if (stopped.has(origin.caseId)) continue;
    const step = entries.get(origin.caseId)?.steps[origin.step];
    if (!step) throw new Error(`harness bug: the schedule names step ${origin.step} of ${origin.caseId}, which the case file does not have`);
    const plan = ledger.plan(origin, step, { endpoint: context.endpoint, token: context.tokens.eventToken, uploadToken: context.tokens.uploadToken });
    const outcome = await runSender(context, `${origin.caseId} step ${origin.step}`, ['client'], plan, context.stepMs, STEP_TAIL_CHARS);
    const stepEvidence: StepEvidence = { ...origin, outcome };
    evidence.steps.push(stepEvidence);
    context.measures.wireOperations++;
    ran.add(origin.caseId);
    const failures: CheckFailure[] = ledger.record(origin, step, outcome);
    if (failures.length > 0) stopped.add(origin.caseId);
  }
  context.measures.scenarios = [...ran].filter((id) => id === context.file.concurrent.id || context.file.cases.some((wire) => wire.id === id) || context.published.some((wire) => wire.id === id)).length;
  context.measures.concurrentRequests = ran.has(context.file.concurrent.id) ? 2 : 0;
  context.measures.atomicPublications = context.published.filter((wire) => ran.has(wire.id)).length;
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
