// The `summary` of a receipt (rules §3's table), shared by the receiver model (which writes the
// fixtures' expectations) and the published atomic rows (built at run time from the SDK's staged
// output). A result's provenance is `{kind:"mcp"}` here; the verifier adds the run's principal as
// `authenticatedSource` (see withPrincipal), since no file can know who the sender is.

import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import type { Selection } from './case-types.ts';

export function requestSummary(selection: Selection, request: JsonValue | undefined): JsonObject {
  return selection === 'body' && request !== undefined ? { request } : { selection };
}

export function resultSummary(selections: { request: Selection; result: Selection }, bodies: { request: JsonValue | undefined; result: JsonValue | undefined }): JsonObject {
  if (selections.request === 'body' && selections.result === 'body' && bodies.request !== undefined && bodies.result !== undefined) {
    return { request: bodies.request, result: bodies.result, provenance: { kind: 'mcp' }, externalCompletion: false };
  }
  return { selection: { request: selections.request, result: selections.result }, bodyValidation: 'not-selected', provenance: { kind: 'mcp' }, externalCompletion: false };
}

/** The summary a receiver started with `principal` must record: provenance names it. */
export function withPrincipal(summary: JsonObject, principal: string): JsonObject {
  const provenance = summary.provenance;
  if (!isJsonObject(provenance)) return summary;
  return { ...summary, provenance: { ...provenance, authenticatedSource: principal } };
}
