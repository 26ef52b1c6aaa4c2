// A synthetic honest lifecycle run (LIFECYCLE-RULES §11 "Base"): the receipt log an honest receiver
// and client would produce for a selection of rows, step by step and in order, and the client's
// report with `actual = expected`. The verifier's self-tests start from it and break it one way at a
// time. It simulates the runtime on its own (pending/staged/settled state, sticky releases, alias
// bindings) rather than reusing the verifier's reading of the rules, so the two check each other.

import type { Transport } from '../../../harness/config/define-config.ts';
import { deriveContentSources } from '../../../harness/lifecycle-adapters/content-sources.ts';
import { observeNotificationFor, withBoundRefs } from '../../../harness/families/lifecycle/observe-message.ts';
import type { ChainScenario, LifecycleScenario, RequestId, StepScenario } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import { cloneJson, isJsonObject, type JsonObject } from '../../../harness/protocol/json.ts';

export interface HonestRunOptions {
  transport: Transport;
  /** The report's language; `typescript` by default. */
  language?: string;
  /**
   * Rows whose deliveries upload the content sources they carry through the SDK (§5): an extra 201
   * upload receipt right before the delivery, a `contentUploads` confirmation, and the body carrying
   * the SDK upload's ref.
   */
  sdkUploadRows?: readonly string[];
  /** What a confirmation's `sourceRef` names: the fixture alias (default) or the receiver ref bound to it. */
  sourceRefs?: 'alias' | 'receiver-ref';
}

export interface HonestRun {
  report: JsonObject;
  /** `{entries:[...]}`; on stdio also `report.receipts`. */
  receipts: { entries: JsonObject[] };
  exitCode: 0;
}

export function buildHonestRun(rows: readonly LifecycleScenario[], options: HonestRunOptions): HonestRun {
  const world = new HonestWorld(rows, options);
  for (const row of rows) {
    if (row.chain !== undefined) world.runChain(row);
    else world.runSteps(row);
  }
  const report: JsonObject = {
    language: options.language ?? 'typescript',
    results: rows.map((row) => ({ id: row.id, status: 'passed', actual: cloneJson(row.expected) as unknown as JsonObject })),
  };
  if (world.contentUploads.length > 0) report.contentUploads = world.contentUploads;
  const receipts = { entries: world.entries };
  if (options.transport === 'stdio') report.receipts = receipts;
  return { report, receipts, exitCode: 0 };
}

const key = (id: RequestId): string => JSON.stringify(id);

class HonestWorld {
  readonly entries: JsonObject[] = [];
  readonly contentUploads: JsonObject[] = [];
  /** The client's alias → receiver ref bindings; they outlive a row, like a client's. */
  private readonly bindings = new Map<string, string>();
  private readonly sources: Map<string, { size: number; sha256: string }>;
  private nextRef = 0;

  constructor(
    rows: readonly LifecycleScenario[],
    private readonly options: HonestRunOptions,
  ) {
    this.sources = new Map(deriveContentSources(rows).map((s) => [s.descriptor.ref, { size: s.descriptor.size, sha256: s.descriptor.sha256 }]));
  }

  /** A fresh opaque receiver ref, never equal to a fixture alias. */
  private freshRef(): string {
    return `rcv-${(this.nextRef++).toString(16).padStart(4, '0')}`;
  }

  runSteps(row: StepScenario): void {
    const slotIds = new Map<string, RequestId>();
    const released = new Set<string>();
    const held = new Map<string, number>();
    const cancelled = new Set<string>();
    const staged = new Set<string>();
    const published = new Set<string>();
    let uploads = 0;
    const mark = (kind: string, id: RequestId): void => void this.entries.push({ kind, id, scenario: row.id });
    const idOf = (k: string): RequestId => (row.requests[k] as { id: RequestId }).id;

    for (const step of row.steps) {
      switch (step.op) {
        case 'upload': {
          const status = row.expected.uploadStatuses[uploads++] as number;
          const entry: JsonObject = { kind: 'upload', status, size: step.size, sha256: step.sha256 };
          if (status === 201) {
            entry.ref = this.freshRef();
            this.bindings.set(step.ref, entry.ref);
          }
          this.entries.push(entry);
          break;
        }
        case 'send': {
          const id = idOf(step.key);
          slotIds.set(step.slot, id);
          const message = this.deliver(row, 'hooks/intercept', (refs) => {
            const request = cloneJson(row.requests[step.key]) as unknown as JsonObject & { params: JsonObject };
            request.params.event = withBoundRefs(request.params.event as JsonObject, refs);
            return request;
          });
          this.entries.push({ kind: 'received', id, message });
          if (released.has(key(id))) this.entries.push({ kind: 'replied', id });
          else held.set(key(id), (held.get(key(id)) ?? 0) + 1);
          break;
        }
        case 'release': {
          const id = idOf(step.key);
          released.add(key(id));
          for (let n = held.get(key(id)) ?? 0; n > 0; n--) this.entries.push({ kind: 'replied', id });
          held.delete(key(id));
          break;
        }
        case 'receive': {
          const id = slotIds.get(step.slot) as RequestId;
          const k = key(id);
          if (!cancelled.has(k) && !staged.has(k) && !published.has(k)) {
            staged.add(k);
            mark('acquired', id);
          }
          break;
        }
        case 'cancel': {
          const id = idOf(step.key);
          if (!cancelled.has(key(id))) {
            cancelled.add(key(id));
            mark('cancelled', id);
          }
          break;
        }
        case 'accept':
        case 'failOpen': {
          const id = idOf(step.key);
          const k = key(id);
          const ready = step.op === 'accept' ? staged.has(k) : true;
          if (ready && !cancelled.has(k) && !published.has(k)) {
            published.add(k);
            mark('accepted', id);
          }
          break;
        }
        case 'observe': {
          const message = this.deliver(row, 'hooks/observe', (refs) => observeNotificationFor(row, step, refs) as unknown as JsonObject);
          const event = (message.params as JsonObject).event as JsonObject;
          this.entries.push({ kind: 'observed', eventId: event.id as string, event, message });
          break;
        }
        case 'emit': {
          const id = step.response.id as RequestId;
          this.entries.push({ kind: 'emitted', id });
          mark('discarded', id);
          break;
        }
        case 'wait':
          break;
      }
    }
  }

  /**
   * The message a delivery carries. In an SDK-upload row each content source the fixture message
   * carries is uploaded first (its own 201 receipt), confirmed, and its items carry that upload's ref.
   */
  private deliver(row: StepScenario, method: 'hooks/intercept' | 'hooks/observe', build: (refs: ReadonlyMap<string, string>) => JsonObject): JsonObject {
    if (!(this.options.sdkUploadRows ?? []).includes(row.id)) return build(this.bindings);
    const fixture = build(new Map());
    const event = (fixture.params as JsonObject).event as JsonObject;
    const aliases = new Set<string>();
    for (const item of Array.isArray(event.items) ? event.items : []) {
      if (isJsonObject(item) && isJsonObject(item.body) && typeof item.body.ref === 'string' && this.sources.has(item.body.ref)) aliases.add(item.body.ref);
    }
    const overrides = new Map(this.bindings);
    for (const alias of aliases) {
      const source = this.sources.get(alias) as { size: number; sha256: string };
      const ref = this.freshRef();
      this.entries.push({ kind: 'upload', status: 201, size: source.size, sha256: source.sha256, ref });
      const sourceRef = this.options.sourceRefs === 'receiver-ref' ? (this.bindings.get(alias) ?? alias) : alias;
      this.contentUploads.push({ method, eventId: event.id as string, descriptor: { ref, size: source.size, sha256: source.sha256 }, sourceRef });
      overrides.set(alias, ref);
    }
    return build(overrides);
  }

  /**
   * The chain client of §7.8: serial calls with the fixture request id (released up front), each
   * carrying the permission the earlier replies left; observers after the last reply; one
   * `chain-settled`. An interrupted chain instead waits for the receipt, cancels, settles, and only
   * then releases and drains the discarded reply.
   */
  runChain(row: ChainScenario): void {
    const request = row.requests.a as { id: RequestId };
    const id = request.id;
    const mark = (kind: string): void => void this.entries.push({ kind, id, scenario: row.id });
    let permission = (row.requests.a?.params.state?.permission ?? 'none') as string;
    const calls = row.chainProof.requests.map((proof, k) => {
      const call = cloneJson(proof) as unknown as JsonObject & { params: { state?: JsonObject } };
      if (call.params.state !== undefined) call.params.state.permission = permission;
      if (!row.expected.failures.includes(row.expected.called[k] as string)) {
        const reply = row.responseSequences?.a?.[k] ?? row.responses.a;
        const effects = ((reply?.result as JsonObject | undefined)?.effects ?? []) as JsonObject[];
        const types = new Set(effects.map((e) => e.type));
        if (types.has('deny')) permission = 'deny';
        else if (types.has('ask') && permission !== 'deny') permission = 'ask';
        else if (types.has('allow') && permission === 'none') permission = 'allow';
      }
      return call;
    });
    if (row.chain.interrupt) {
      this.entries.push({ kind: 'received', id, message: calls[0] as JsonObject });
      mark('cancelled');
      mark('chain-settled');
      this.entries.push({ kind: 'replied', id });
      return;
    }
    for (const call of calls) this.entries.push({ kind: 'received', id, message: call }, { kind: 'replied', id });
    for (const notification of row.chainProof.observations) {
      const message = cloneJson(notification) as unknown as JsonObject;
      const event = (message.params as JsonObject).event as JsonObject;
      this.entries.push({ kind: 'observed', eventId: event.id as string, event, message });
    }
    mark('chain-settled');
  }
}

/** Freezes a JSON value and everything in it, so that any write to it throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
