// The SDK-like public observe path of the catalogue client (CATALOGUE-RULES §5 `notify`): before a
// notification leaves, the SDK checks it against the observe-notification schema and its own
// source-local lineage, exactly as a receiver would (harness/families/catalogue/lineage-tracker.ts). One
// tracker lives for the whole run, keyed by (source, id), so lineage learned in one row holds in the
// next. The SDK sends the notification it is given unchanged: it adds no id or subscription and does
// not filter content, so the wire is the fixture's message. Raw probes (`rawNotify`) bypass this.

import { LineageTracker, type LineageValidators } from '../../../harness/families/catalogue/lineage-tracker.ts';
import { semanticRefusal } from '../lib/strict-wire.ts';

export class SdkObserver {
  private readonly lineage: LineageTracker;

  constructor(validators: LineageValidators) {
    this.lineage = new LineageTracker(validators);
  }

  /** Why the SDK refuses to send `message`, or undefined when it may go (and its lineage is recorded). */
  refusal(message: unknown): string | undefined {
    // A strict SDK: a notification that breaks a MUST of the spec never leaves (strict-wire.ts).
    const broken = semanticRefusal(message, 'observe');
    if (broken !== undefined) return `the SDK refuses to send a notification that breaks the spec: ${broken}`;
    const verdict = this.lineage.accept(message);
    return verdict.accepted ? undefined : `the SDK refuses the notification (${verdict.errorKind}: ${verdict.reason})`;
  }
}
