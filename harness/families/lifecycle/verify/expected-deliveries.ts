// The exact messages an honest client sends, per send and observe step, in row and step order
// (LIFECYCLE-RULES §7.4 (22), §7.5, §7.6): the fixture's body aliases rewritten to the receiver refs
// their 201 uploads bound, and the items an SDK-driven upload confirmation selects rewritten to that
// upload's ref. Checking the confirmations against the content sources happens on the way.

import { cloneJson, type JsonObject } from '../../../protocol/json.ts';
import { observeNotificationFor, withBoundRefs } from '../observe-message.ts';
import type { ContentSource, RequestId, StepScenario } from '../../../lifecycle-adapters/scenario-types.ts';
import type { Confirmation, DeliveryMethod } from './content-confirmations.ts';
import type { Findings } from '../../../lifecycle-adapters/findings.ts';
import { LABEL } from '../../../lifecycle-adapters/labels.ts';
import { bodyRefs, eventOf } from '../../../lifecycle-adapters/receipt-log.ts';
import type { RowPlan } from './row-plan.ts';
import type { RefBytes, UploadOutcome } from './upload-checks.ts';

export interface ExpectedDelivery {
  rowId: string;
  stepIndex: number;
  /** The receipt kind that records it. */
  kind: 'received' | 'observed';
  /** The request the step names. */
  requestId: RequestId;
  message: JsonObject;
}

export function expectedDeliveries(
  plans: readonly RowPlan[],
  uploads: UploadOutcome,
  confirmations: readonly Confirmation[],
  sources: readonly ContentSource[],
  findings: Findings,
): ExpectedDelivery[] {
  const bindings = new Map<string, string>();
  const sourceByAlias = new Map(sources.map((s) => [s.descriptor.ref, s.descriptor]));
  const confirmedRefs = new Map<string, RefBytes>(uploads.refs);
  const selections = new Map<Confirmation, number>(confirmations.map((c) => [c, 0]));
  const deliveries: ExpectedDelivery[] = [];

  for (const plan of plans) {
    const row = plan.row;
    row.steps.forEach((step, stepIndex) => {
      if (step.op === 'upload') {
        const ref = uploads.bindings.get(row.id)?.get(stepIndex);
        if (ref !== undefined) bindings.set(step.ref, ref);
        return;
      }
      if (step.op !== 'send' && step.op !== 'observe') return;
      const request = Object.hasOwn(row.requests, step.key) ? row.requests[step.key] : undefined;
      if (request === undefined) return;
      const method: DeliveryMethod = step.op === 'send' ? 'hooks/intercept' : 'hooks/observe';
      const build = (refs: ReadonlyMap<string, string>): JsonObject =>
        step.op === 'send' ? requestWithRefs(row, step.key, refs) : (observeNotificationFor(row, step, refs) as unknown as JsonObject);
      const fixtureAliases = new Set(bodyRefs(eventOf(build(new Map()))));
      const context: MessageContext = { row, stepIndex, method, eventId: request.params.event.id, fixtureAliases, bindings, sourceByAlias, confirmedRefs };
      const overrides = applyConfirmations(context, confirmations, selections, findings);
      deliveries.push({
        rowId: row.id,
        stepIndex,
        kind: step.op === 'send' ? 'received' : 'observed',
        requestId: request.id,
        message: build(new Map([...bindings, ...overrides])),
      });
    });
  }

  for (const [c, count] of selections) {
    if (count === 1) continue;
    findings.rowOrRun(
      c.rowId,
      LABEL.sourceSelection,
      'client',
      `report.contentUploads[${c.index}] (${c.method}, event ${JSON.stringify(c.eventId)}, sourceRef ${JSON.stringify(c.sourceRef)}) selects items in ${count} expected deliveries, expected exactly one`,
    );
  }
  return deliveries;
}

function requestWithRefs(row: StepScenario, key: string, refs: ReadonlyMap<string, string>): JsonObject {
  const request = cloneJson(row.requests[key]) as unknown as JsonObject & { params: JsonObject };
  request.params.event = withBoundRefs(request.params.event as JsonObject, refs);
  return request;
}

interface MessageContext {
  row: StepScenario;
  stepIndex: number;
  method: DeliveryMethod;
  eventId: string;
  /** The body aliases the fixture message carries. */
  fixtureAliases: ReadonlySet<string>;
  /** Alias → receiver ref, as bound so far. */
  bindings: ReadonlyMap<string, string>;
  sourceByAlias: ReadonlyMap<string, ContentSource['descriptor']>;
  /** Receiver ref → the bytes it names (step uploads, then confirmations); grows as confirmations are read. */
  confirmedRefs: Map<string, RefBytes>;
}

/**
 * (22) for the confirmations of one expected message (same method and event id): each `sourceRef`
 * must name a content source — its alias, or a receiver ref bound to it — not named twice for this
 * message, with the descriptor's size and digest; a descriptor ref may not name other bytes than it
 * already does. Returns alias → descriptor ref for the items the confirmations select.
 */
function applyConfirmations(context: MessageContext, confirmations: readonly Confirmation[], selections: Map<Confirmation, number>, findings: Findings): Map<string, string> {
  const overrides = new Map<string, string>();
  const claimed = new Set<string>();
  const where = `steps[${context.stepIndex}] (${context.method})`;
  for (const c of confirmations) {
    if (c.method !== context.method || c.eventId !== context.eventId) continue;
    const at = `report.contentUploads[${c.index}] for ${where}`;
    const aliases = sourceAliases(c.sourceRef, context);
    const problems: string[] = [];
    if (aliases.length === 0) problems.push(`sourceRef ${JSON.stringify(c.sourceRef)} names no content source (neither an alias nor a receiver ref bound to one)`);
    const repeated = aliases.filter((a) => claimed.has(a));
    if (repeated.length > 0) problems.push(`source ${repeated.map((a) => JSON.stringify(a)).join(', ')} is confirmed more than once for this message`);
    for (const alias of aliases) {
      const source = context.sourceByAlias.get(alias);
      if (source !== undefined && (source.size !== c.descriptor.size || source.sha256 !== c.descriptor.sha256)) {
        problems.push(`descriptor size ${c.descriptor.size}, sha256 ${c.descriptor.sha256} differ from source ${JSON.stringify(alias)} (size ${source.size}, sha256 ${source.sha256})`);
      }
    }
    if (problems.length > 0) {
      findings.row(context.row.id, LABEL.sourceIntegrity, 'client', `${at}: ${problems.join('; ')}`);
      continue;
    }
    const known = context.confirmedRefs.get(c.descriptor.ref);
    if (known !== undefined && (known.size !== c.descriptor.size || known.sha256 !== c.descriptor.sha256)) {
      findings.row(
        context.row.id,
        LABEL.reusedRef,
        'server',
        `${at}: confirmed ref ${JSON.stringify(c.descriptor.ref)} already names alias ${JSON.stringify(known.alias)}'s bytes (size ${String(known.size)}, sha256 ${String(known.sha256)}), not size ${c.descriptor.size}, sha256 ${c.descriptor.sha256}`,
      );
    }
    if (known === undefined) context.confirmedRefs.set(c.descriptor.ref, { alias: aliases[0] as string, size: c.descriptor.size, sha256: c.descriptor.sha256 });
    for (const alias of aliases) claimed.add(alias);
    const selected = aliases.filter((a) => context.fixtureAliases.has(a));
    for (const alias of selected) overrides.set(alias, c.descriptor.ref);
    if (selected.length > 0) selections.set(c, (selections.get(c) ?? 0) + 1);
  }
  return overrides;
}

/** The content source aliases `sourceRef` names: itself when it is a source alias, and every alias bound to it as a receiver ref. */
function sourceAliases(sourceRef: string, context: MessageContext): string[] {
  const aliases = new Set<string>();
  if (context.sourceByAlias.has(sourceRef)) aliases.add(sourceRef);
  for (const [alias, ref] of context.bindings) if (ref === sourceRef && context.sourceByAlias.has(alias)) aliases.add(alias);
  return [...aliases];
}
