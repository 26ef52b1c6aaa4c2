// One compaction pair on one transport (COMPACTION-RULES §8): resolve the three commands, write the
// pair's files and fresh tokens, start the HTTP receiver, run the host over the selected cases, read
// the receipts (and on stdio what the recorder saw), run the rejection probe over the selected probe
// requests, and turn it all into one verdict per selected row. Every process is reaped on every
// path: the receiver in `finally`, the host and the probe client by the client-process primitive
// (their groups hold the stdio receivers they spawned), and the work folder is removed.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { familyCommand, familyEnvironment, prepareFamilyCommand, type FamilyCommand } from '../../adapters/family-command.ts';
import { writePrivateJson } from '../../adapters/private-json.ts';
import { safeLabel } from '../../adapters/file-name-part.ts';
import { runClientProcess } from '../../runs/client-process.ts';
import type { MatrixGroup } from '../../runs/plan.ts';
import { redactSecrets } from '../../runs/redact-secrets.ts';
import { parseJsonText } from '../../protocol/json-text.ts';
import type { GroupRunResult } from '../../setup/grouped-suite.ts';
import type { CompactionCase, CompactionCaseFile, ProbeRequest } from './case-types.ts';
import { createPairFiles, type PairFiles } from './pair-files.ts';
import { pairVerdicts, type CompactionRow } from './pair-verdicts.ts';
import { readReceiptLines } from './receipt-lines.ts';
import { RECEIVER_GRACE_MS, startHttpReceiver } from './receiver-start.ts';
import { hostCaseRows } from './subscriptions.ts';
import { stderrTail } from './text-tail.ts';
import { LABEL, type CompactionCheck } from './verify/labels.ts';
import { readWireRecords } from './verify/read-wire-records.ts';
import { verifyHostRun, type HostVerification } from './verify/verify-host.ts';
import { verifyProbe, type ProbeClientOutcome } from './verify/verify-probe.ts';

export const RECORDER_PATH = fileURLToPath(new URL('./stdio-recorder.mjs', import.meta.url));
export const HOST_RUN_MS = 240_000;
export const PROBE_RUN_MS = 60_000;
const CLIENT_GRACE_MS = 5_000;

export interface CompactionRunOptions {
  file: CompactionCaseFile;
  schemasDir: string;
  runDir: string;
  logDir: string;
  /** Overrides of the rules' watchdogs (self-tests shorten them). */
  timeouts?: { readyMs?: number; hostMs?: number; probeMs?: number };
}

/** The sender is the group's client, the receiver its server (the label reads `<sender>→<receiver>`). */
export async function runCompactionPair(group: MatrixGroup, rows: CompactionRow[], options: CompactionRunOptions): Promise<GroupRunResult> {
  const started = Date.now();
  const cases = rows.filter((row): row is CompactionCase => 'before' in row);
  const probes = rows.filter((row): row is ProbeRequest => 'request' in row);
  const files = createPairFiles(options.runDir, group.label, options.file);
  const logs: string[] = [];
  const notes: string[] = [];
  let receiverStop: (() => Promise<void>) | undefined;
  try {
    const buildDir = path.join(options.runDir, 'go-builds');
    const receiverWire = await prepared(familyCommand(group.server, 'compactionWire'), buildDir);
    const senderWire = await prepared(familyCommand(group.client, 'compactionWire'), buildDir);
    const senderProbe = probes.length > 0 ? await prepared(familyCommand(group.client, 'compaction'), buildDir) : undefined;
    for (const lookup of [receiverWire, senderWire, senderProbe]) if (lookup?.ok) notes.push(...lookup.command.notes);
    if (!receiverWire.ok || !senderWire.ok) {
      const check: CompactionCheck = { label: LABEL.host, party: receiverWire.ok ? 'sender' : 'receiver', message: (!receiverWire.ok ? receiverWire.reason : '') || (!senderWire.ok ? senderWire.reason : '') };
      return finish(pairVerdicts({ cases, probes, every: [check], secrets: files.secrets, notes }));
    }
    const env = { ...familyEnvironment([group.client, group.server]), ...files.tokenEnv };
    const receiverArgv = [...receiverWire.command.argv, options.schemasDir, files.storeDir, files.configPath];

    const receiver = await startHttpReceiver({ argv: receiverArgv, cwd: receiverWire.command.cwd, env, workDir: files.workDir, secrets: files.secrets, ...(options.timeouts?.readyMs ? { readyMs: options.timeouts.readyMs } : {}) });
    logs.push(receiver.logFile);
    if (!receiver.ok) return finish(pairVerdicts({ cases, probes, every: [receiver.check], secrets: files.secrets, notes }));
    receiverStop = () => receiver.process.stop(RECEIVER_GRACE_MS);

    // On stdio the host spawns each receiver through the recorder, which passes the wire through and keeps it.
    const receiverCommand = group.transport === 'stdio' ? [process.execPath, RECORDER_PATH, files.recorderSpec, ...receiverArgv] : receiverArgv;
    let host: HostVerification | undefined;
    const pairChecks: CompactionCheck[] = [];
    let hostReceipts = 0;
    const actual = new Map<string, unknown>();
    if (cases.length > 0) {
      const outcome = await runHost(group, senderWire.command, { cases, receiverCommand, endpoint: receiver.endpoint, env, files, options });
      logs.push(outcome.logFile);
      const { receipts, bad } = readReceiptLines(files.receiptsFile);
      hostReceipts = receipts.length;
      if (bad.length > 0) pairChecks.push({ label: LABEL.receiptLog, party: 'receiver', message: `receipts.jsonl line(s) ${bad.join(', ')} are not JSON objects (one compact JSON object per line, no blank lines)` });
      if (!outcome.ok) pairChecks.push(outcome.check);
      else {
        if (Array.isArray(outcome.outputs)) for (const output of outcome.outputs as Array<{ name?: unknown }>) if (typeof output?.name === 'string') actual.set(output.name, output);
        const wire = group.transport === 'stdio' ? readWireRecords(files.instancesDir) : undefined;
        host = verifyHostRun({ cases, outputs: outcome.outputs, receipts, subscriptions: files.subscriptions, ...(wire ? { wire: wire.records } : {}) });
        for (const instance of wire?.leftovers ?? []) {
          const record = wire!.records.find((r) => r.instance === instance);
          const owner = cases.find((c) => record?.scope?.startsWith(`${c.id}-`));
          const check: CompactionCheck = { label: LABEL.stdioLeftover, party: 'either', message: `stdio receiver #${instance} (${record?.scope ?? 'no scope'}) had not ended by itself when the host exited (still running, or killed)` };
          if (owner) host.rows.get(owner.id)!.push(check);
          else host.pair.push(check);
        }
        for (const spawn of wire?.spawnErrors ?? []) host.pair.push({ label: LABEL.host, party: 'either', message: `stdio receiver #${spawn.instance} could not be started: ${spawn.message}` });
      }
    }

    let probe: Map<string, CompactionCheck[]> | undefined;
    if (probes.length > 0) {
      const client = senderProbe === undefined || !senderProbe.ok
        ? ({ ok: false, check: { label: LABEL.unsupportedProbe, party: 'sender', message: `${senderProbe && !senderProbe.ok ? senderProbe.reason : `adapter "${group.client.name}" has no compaction command`}; the receiver rejection probe runs through the sender's transport adapter, so this pair cannot pass` } } as ProbeClientOutcome)
        : await runProbe(senderProbe.command, { transport: group.transport, probes, receiverCommand, endpoint: receiver.endpoint, env, files, options, logs });
      const after = readReceiptLines(files.receiptsFile).receipts.slice(hostReceipts);
      probe = verifyProbe({ probes, client, receipts: after });
      if (client.ok && Array.isArray(client.replies)) probes.forEach((p, i) => actual.set(p.id, (client.replies as unknown[])[i] ?? null));
    }
    return finish(pairVerdicts({ cases, probes, hostRun: pairChecks, ...(host ? { host } : {}), ...(probe ? { probe } : {}), actual, secrets: files.secrets, notes }));
  } finally {
    await receiverStop?.();
    rmSync(files.workDir, { recursive: true, force: true });
  }

  function finish(result: Omit<GroupRunResult, 'keptLogs'>): GroupRunResult {
    const failed = [...result.rows.values()].some((row) => row.verdict === 'failed');
    const keptLogs = failed ? keepRedacted(logs, path.join(options.logDir, 'compaction', safeLabel(group.label)), files.secrets) : [];
    return { ...result, keptLogs, durationMs: Date.now() - started };
  }
}

async function prepared(lookup: ReturnType<typeof familyCommand>, buildDir: string): Promise<ReturnType<typeof familyCommand>> {
  if (!lookup.ok) return lookup;
  mkdirSync(buildDir, { recursive: true });
  return prepareFamilyCommand(lookup.command, { buildDir });
}

interface ProcessInputs {
  receiverCommand: string[];
  endpoint: string;
  env: Record<string, string>;
  files: PairFiles;
  options: CompactionRunOptions;
}

type HostOutcome = { ok: true; outputs: unknown; logFile: string } | { ok: false; check: CompactionCheck; logFile: string };

async function runHost(group: MatrixGroup, command: FamilyCommand, inputs: ProcessInputs & { cases: CompactionCase[] }): Promise<HostOutcome> {
  const { files } = inputs;
  const planFile = path.join(files.workDir, 'host-plan.json');
  const logFile = path.join(files.workDir, 'host.log');
  const stdoutFile = path.join(files.workDir, 'host-out.json');
  writePrivateJson(planFile, {
    cases: hostCaseRows(inputs.cases),
    schema: inputs.options.schemasDir,
    transport: group.transport,
    endpoint: inputs.endpoint,
    credentials: files.credentials,
    receiverCommand: inputs.receiverCommand,
  });
  const run = await runClientProcess({ command: [...command.argv, 'host'], cwd: command.cwd, env: inputs.env, logFile, stdoutFile, stdinFile: planFile, runMs: inputs.options.timeouts?.hostMs ?? HOST_RUN_MS, graceMs: CLIENT_GRACE_MS });
  rmSync(planFile, { force: true }); // it holds every token
  if (!run.started) return { ok: false, logFile, check: { label: LABEL.host, party: 'sender', message: `host: ${run.spawnError.message}` } };
  if (run.timedOut) return { ok: false, logFile, check: { label: LABEL.hostTimeout, party: 'sender', message: LABEL.hostTimeout } };
  if (run.exit.code !== 0) return { ok: false, logFile, check: { label: LABEL.host, party: 'sender', message: `host: ${stderrTail(logFile, 2000, files.secrets) || `exited with ${run.exit.signal ?? `code ${run.exit.code}`} and wrote nothing to stderr`}` } };
  const parsed = parseJsonText(existsSync(stdoutFile) ? readFileSync(stdoutFile, 'utf8') : '');
  if (!parsed.ok) return { ok: false, logFile, check: { label: LABEL.hostOutput, party: 'sender', message: `the host's stdout is not JSON ${parsed.where}` } };
  return { ok: true, outputs: parsed.value, logFile };
}

async function runProbe(command: FamilyCommand, inputs: ProcessInputs & { transport: MatrixGroup['transport']; probes: ProbeRequest[]; logs: string[] }): Promise<ProbeClientOutcome> {
  const { files } = inputs;
  const planFile = path.join(files.workDir, 'probe-plan.json');
  const logFile = path.join(files.workDir, 'probe.log');
  const stdoutFile = path.join(files.workDir, 'probe-out.json');
  inputs.logs.push(logFile);
  writePrivateJson(planFile, probePlan(inputs.transport, inputs.probes, inputs.endpoint, files.credentials, inputs.receiverCommand));
  const run = await runClientProcess({ command: [...command.argv, 'client'], cwd: command.cwd, env: inputs.env, logFile, stdoutFile, stdinFile: planFile, runMs: inputs.options.timeouts?.probeMs ?? PROBE_RUN_MS, graceMs: CLIENT_GRACE_MS });
  rmSync(planFile, { force: true });
  const negative = (detail: string): ProbeClientOutcome => ({ ok: false, check: { label: LABEL.negativeSender, party: 'either', message: `${LABEL.negativeSender}: ${detail}` } });
  if (!run.started) return negative(run.spawnError.message);
  if (run.timedOut) return negative(`the probe client did not finish within ${inputs.options.timeouts?.probeMs ?? PROBE_RUN_MS} ms; its process group was terminated`);
  if (run.exit.code !== 0) return negative(stderrTail(logFile, 1000, files.secrets) || `exited with ${run.exit.signal ?? `code ${run.exit.code}`}`);
  const parsed = parseJsonText(existsSync(stdoutFile) ? readFileSync(stdoutFile, 'utf8') : '');
  if (!parsed.ok) return negative(`its stdout is not JSON ${parsed.where}`);
  return { ok: true, replies: parsed.value };
}

/**
 * The probe client's plan (COMPACTION-RULES §9): the requests unchanged, the receiver's intercept URL
 * as the client posts to it verbatim, the token of the scope they are sent under, and the stdio
 * receiver command for that scope (the client appends one more `stdio`).
 */
export function probePlan(
  transport: MatrixGroup['transport'],
  probes: readonly ProbeRequest[],
  endpoint: string,
  credentials: PairFiles['credentials'],
  receiverCommand: readonly string[],
): { transport: string; requests: unknown[]; endpoint: string; token: string; command: string[] } {
  const scope = probes[0]!.subscription;
  const credential = credentials[scope];
  if (!credential) throw new Error(`harness bug: the probe's scope ${scope} has no credential`);
  return { transport, requests: probes.map((p) => p.request), endpoint: `${endpoint}/hooks/intercept`, token: credential.token, command: [...receiverCommand, 'stdio', scope] };
}

/** Copies the logs that exist under `dir`, every secret of the pair redacted (kept logs outlive the run). */
function keepRedacted(files: string[], dir: string, secrets: readonly string[]): string[] {
  const kept: string[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const target = path.join(dir, path.basename(file));
    mkdirSync(dir, { recursive: true });
    writeFileSync(target, redactSecrets(readFileSync(file, 'utf8'), secrets), { mode: 0o600 });
    kept.push(target);
  }
  return kept;
}
