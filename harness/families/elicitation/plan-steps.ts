// TEMPORARY SHIM (eli-run): a minimal stand-in for eli-model's planner with the API it announced, so
// the run can be exercised against the reference adapter before the real module lands. Replaced
// wholesale by eli-model's plan-steps.ts on merge; nothing here is meant to stay.

import type { JsonObject } from '../../protocol/json.ts';
import type { AtomicInput, AtomicRow, ContentSource, ElicitationBinding, ElicitationCaseFile, ProcessOutcome, SenderPlan, StepOrigin, UploadDescriptor, WireCase, WireStep, CheckFailure } from './case-types.ts';
import { rewriteAliases } from './ref-rewriting.ts';

export class PairLedger {
  private readonly aliases = new Map<string, UploadDescriptor>();
  private readonly sources: ContentSource[] = [];
  private readonly pendingBytes = new Map<string, string>();
  constructor(private readonly binding: ElicitationBinding) {}

  plan(_origin: StepOrigin, step: WireStep, secrets: { endpoint: string; token: string; uploadToken: string }): SenderPlan {
    if (step.kind === 'upload') {
      return { endpoint: secrets.endpoint, token: secrets.token, uploadToken: secrets.uploadToken, steps: [{ path: '/upload', bytes: step.bytes, ...(step.headers ? { headers: step.headers } : {}) }], contentSources: [...this.sources] };
    }
    const message = this.binding === 'upload' ? rewriteAliases(step.message, this.aliases) : step.message;
    return {
      endpoint: secrets.endpoint,
      token: secrets.token,
      uploadToken: secrets.uploadToken,
      steps: [{ path: '/hooks/intercept', bytes: Buffer.from(JSON.stringify(message)).toString('base64'), ...(step.expectStatus !== 200 ? { bypass: true as const } : {}) }],
      contentSources: step.expectStatus === 200 ? [...this.sources] : [],
    };
  }

  record(origin: StepOrigin, step: WireStep, outcome: ProcessOutcome): CheckFailure[] {
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) return [{ caseId: origin.caseId, label: outcome.stderrTail || 'exit', party: 'sender', evidence: 'failed' }];
    const [result] = JSON.parse(outcome.stdout) as Array<{ status: number; body: string }>;
    if (!result || result.status !== step.expectStatus) return [{ caseId: origin.caseId, label: `${step.kind} expected ${step.expectStatus}, got ${result?.status}`, party: 'either', evidence: result?.body ?? '' }];
    if (step.kind === 'upload' && result.status === 201) {
      const descriptor = JSON.parse(result.body) as UploadDescriptor;
      this.aliases.set(step.alias, descriptor);
      this.sources.push({ descriptor, bytes: step.bytes });
      this.pendingBytes.set(descriptor.ref, step.bytes);
    }
    return [];
  }
}

export function pairSchedule(file: ElicitationCaseFile, selection: ReadonlySet<string>, published: readonly WireCase[]): StepOrigin[] {
  const origins: StepOrigin[] = [];
  const entries: Array<{ id: string; steps: WireStep[] }> = [...file.cases, ...published, ...file.probes.flatMap((probe) => (probe.kind === 'upload' ? [probe] : [])), file.concurrent];
  for (const entry of entries) {
    const selected = selection.has(entry.id) || published.includes(entry as WireCase);
    if (selected) entry.steps.forEach((_step, step) => origins.push({ caseId: entry.id, step }));
  }
  return origins;
}

export function atomicHelperInput(rows: readonly AtomicRow[]): AtomicInput[] {
  return rows.map((row) => row.input);
}

export function publishedCases(_file: ElicitationCaseFile, _atomic: ProcessOutcome): WireCase[] {
  return [];
}

export type { JsonObject };
