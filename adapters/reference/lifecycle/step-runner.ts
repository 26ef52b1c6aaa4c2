// Runs one step-script row (LIFECYCLE-RULES §4) in order, each step — and its control call —
// completing before the next, with the SDK-side pending state of pending-interceptions.ts. The
// row's `actual` is built only from what happened here: replies this client received and evaluated,
// cancellations that took effect, statuses the receiver answered. `expected` is never read.

import type { LifecycleExpected, LifecycleStep, MarkKind, RequestId, StepScenario } from '../../../harness/lifecycle-adapters/scenario-types.ts';
import type { JsonObject } from '../../../harness/protocol/json.ts';
import type { InterceptRequest } from '../../../harness/protocol/messages.ts';
import { withBoundRefs } from '../../../harness/families/lifecycle/observe-message.ts';
import type { Received } from '../lib/channel.ts';
import { assertBodiesReady } from './body-refs.ts';
import { PendingInterceptions } from './pending-interceptions.ts';
import { RowFailure } from './row-failure.ts';
import { observeSettled, type RowOutcome, type RowServices } from './row-services.ts';

interface Slot {
  id: RequestId;
  reply: Promise<Received>;
}

export async function runStepRow(row: StepScenario, services: RowServices): Promise<RowOutcome<LifecycleExpected>> {
  const run = new StepRun(row, services);
  for (const [index, step] of row.steps.entries()) {
    try {
      await run.step(step);
    } catch (error) {
      if (!(error instanceof RowFailure)) throw error;
      return { actual: run.actual, error: `steps[${index}] ${step.op}: ${error.message}` };
    }
  }
  return { actual: run.actual };
}

class StepRun {
  readonly actual: LifecycleExpected = { published: [], cancelled: [], ignored: [], states: {}, observations: [], uploadStatuses: [] };
  private readonly sdk: PendingInterceptions;
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly row: StepScenario,
    private readonly services: RowServices,
  ) {
    this.sdk = new PendingInterceptions(services.validators);
  }

  async step(step: LifecycleStep): Promise<void> {
    const { services, sdk, actual } = this;
    switch (step.op) {
      case 'send': {
        const request = this.request(step.key);
        assertBodiesReady(request.params.event.items as JsonObject[] | undefined, services.uploads.bindings, 'send');
        const message: InterceptRequest = { ...request, params: { ...request.params, event: withBoundRefs(request.params.event, services.uploads.bindings) } };
        // A bypassing send is a raw replay outside SDK dispatch: it opens nothing, but its reply
        // still reaches the SDK through its slot.
        if (step.bypassSDK !== true) sdk.open(message);
        this.slots.set(step.slot, { id: request.id, reply: services.events.send(message as unknown as JsonObject) });
        return;
      }
      case 'wait':
        return services.control.wait(this.request(step.key).id, step.count);
      case 'release':
        return services.control.release(this.request(step.key).id);
      case 'receive': {
        const slot = this.slots.get(step.slot);
        if (slot === undefined) throw new RowFailure(`slot ${JSON.stringify(step.slot)} was never sent`);
        const received = await slot.reply;
        if (!received.ok) throw new RowFailure(`slot ${JSON.stringify(step.slot)}: ${received.error}`);
        const delivery = sdk.deliver(slot.id, received.message);
        if (delivery === 'staged') return this.mark('acquired', slot.id);
        if (delivery === 'ignored') actual.ignored.push(step.slot);
        else services.log.info(`${this.row.id}: the reply in slot ${step.slot} fails the intercept-response schema; the interception failed`);
        return;
      }
      case 'cancel': {
        const id = this.request(step.key).id;
        if (!sdk.cancel(id)) return;
        actual.cancelled.push(String(id));
        return this.mark('cancelled', id);
      }
      case 'accept':
      case 'failOpen': {
        const request = this.request(step.key);
        const state = step.op === 'accept' ? sdk.accept(request.id) : sdk.failOpen(request);
        if (state === undefined) return;
        actual.published.push(String(request.id));
        actual.states[String(request.id)] = state;
        return this.mark('accepted', request.id);
      }
      case 'upload':
        actual.uploadStatuses.push(await services.uploads.run(step));
        return;
      case 'observe': {
        const request = this.request(step.key);
        const id = String(request.id);
        const published = Object.hasOwn(actual.states, id) ? actual.states[id] : undefined;
        const input = await observeSettled(services, request.params.event, published?.input, step.items, 'observe');
        actual.observations.push({ eventId: request.params.event.id, subscription: step.subscription, input });
        return;
      }
      case 'emit': {
        const strays = services.events.strays;
        if (strays === undefined) throw new RowFailure('stray frames exist only over stdio');
        const id = step.response.id;
        if (typeof id !== 'string' && typeof id !== 'number') throw new RowFailure('the emitted response has no JSON-RPC id');
        const seen = strays.count(id);
        await services.control.emit(step.response);
        if (!(await strays.waitBeyond(id, seen, services.strayMs))) {
          throw new RowFailure(`the stray frame was not read and discarded within ${services.strayMs} ms`);
        }
        actual.ignored.push(`unsolicited:${id}`);
        return this.mark('discarded', id);
      }
    }
  }

  private request(key: string): InterceptRequest {
    const request = Object.hasOwn(this.row.requests, key) ? this.row.requests[key] : undefined;
    if (request === undefined) throw new RowFailure(`request key ${JSON.stringify(key)} is not in the row`);
    return request;
  }

  private mark(kind: MarkKind, id: RequestId): Promise<void> {
    return this.services.control.mark(this.row.id, kind, id);
  }
}
