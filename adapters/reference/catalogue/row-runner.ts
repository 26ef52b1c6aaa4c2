// Runs catalogue rows in file order on one connection (CATALOGUE-RULES §5). Per row `actual` is
// `{sent, registrations}`, built only from what this client did — `expected` is never read:
//
//   notify     a deep copy through the SDK's public observe path (schema and client lineage, then
//              the wire; the receiver must take it: any 2xx), then POST /wait-observed with the
//              running count for its event id; pushed to `sent`
//   rawNotify  the same bytes outside SDK dispatch (no SDK checks); the receiver may refuse it
//              (2xx, 400 and 409 are all answers), then /wait-observed; pushed to `sent`
//   register   evaluated locally against the discovered manifest (§5.1): no network, no process
//              environment; `{accepted}` pushed to `registrations`
//   other      a failure of the run, never a skip
//
// The rendezvous makes the receiver's log follow step order on both transports. Any failure ends
// the row and the run: later rows would meet a receiver and a lineage out of step with the file.

import { evaluateRegistration, type RegistrationValidators } from '../../../harness/families/catalogue/evaluate-registration.ts';
import { eventIdOf } from '../../../harness/families/catalogue/receipt-entries.ts';
import type { CatalogueActual, CatalogueScenario, CatalogueStep } from '../../../harness/families/catalogue/scenario-types.ts';
import { cloneJson, type JsonValue } from '../../../harness/protocol/json.ts';
import type { ReceiverControl } from '../lifecycle/receiver-control.ts';
import { RowFailure } from '../lifecycle/row-failure.ts';
import type { CatalogueTransport, Notified } from './catalogue-transport.ts';
import type { SdkObserver } from './sdk-observer.ts';

export interface CatalogueRunServices {
  transport: CatalogueTransport;
  control: ReceiverControl;
  sdk: SdkObserver;
  /** `result.manifest` of the one discovery. */
  manifest: unknown;
  validators: RegistrationValidators;
}

export interface CatalogueRowOutcome {
  actual: CatalogueActual;
  /** Set when a failure ended the row (and the run); `actual` holds what happened before it. */
  error?: string;
}

/** Statuses a raw probe may get: delivered, or refused by the receiver's schema or lineage check. */
const RAW_ANSWERS = new Set([400, 409]);

export class CatalogueRowRunner {
  /** Event id (as JSON text) → notifications this client sent for it so far, for /wait-observed. */
  private readonly sentPerEvent = new Map<string, number>();

  constructor(private readonly services: CatalogueRunServices) {}

  async run(row: CatalogueScenario): Promise<CatalogueRowOutcome> {
    const actual: CatalogueActual = { sent: [], registrations: [] };
    for (const [index, step] of row.steps.entries()) {
      try {
        await this.step(step, actual);
      } catch (error) {
        if (!(error instanceof RowFailure)) throw error;
        return { actual, error: `steps[${index}] ${String((step as { op: unknown }).op).slice(0, 40)}: ${error.message}` };
      }
    }
    return { actual };
  }

  private async step(step: CatalogueStep, actual: CatalogueActual): Promise<void> {
    switch (step.op) {
      case 'notify': {
        const message = cloneJson(step.message);
        const refusal = this.services.sdk.refusal(message);
        if (refusal !== undefined) throw new RowFailure(refusal);
        delivered(await this.services.transport.notify(message), (status) => status >= 200 && status < 300);
        await this.rendezvous(message);
        actual.sent.push(message);
        return;
      }
      case 'rawNotify': {
        const message = cloneJson(step.message);
        delivered(await this.services.transport.notify(message), (status) => (status >= 200 && status < 300) || RAW_ANSWERS.has(status));
        await this.rendezvous(message);
        actual.sent.push(message);
        return;
      }
      case 'register': {
        const { registration, requirements, context } = step;
        const evaluation = evaluateRegistration({ registration, manifest: this.services.manifest, requirements, context }, this.services.validators);
        actual.registrations.push({ accepted: evaluation.accepted });
        return;
      }
      default:
        throw new RowFailure(`unknown op ${JSON.stringify((step as { op: unknown }).op)}: this client runs notify, rawNotify and register only`);
    }
  }

  /** Waits until the receiver has judged every notification of this event id sent so far. */
  private async rendezvous(message: unknown): Promise<void> {
    const eventId = eventIdOf(message) as JsonValue;
    const key = JSON.stringify(eventId);
    const count = (this.sentPerEvent.get(key) ?? 0) + 1;
    this.sentPerEvent.set(key, count);
    await this.services.control.waitObserved(eventId, count);
  }
}

function delivered(notified: Notified, tolerated: (status: number) => boolean): void {
  if (!notified.ok) throw new RowFailure(notified.error);
  if (notified.status !== undefined && !tolerated(notified.status)) throw new RowFailure(`the receiver answered HTTP status ${notified.status}`);
}
