// Building blocks of our catalogue fixture rows: the row spec the generator turns into a row, the
// observe notification around an event, and content items whose ids are namespaced by their row
// (`<row id>:item:<name>`) so that no id is ever reused for another role.

import type { CatalogueCategory, CatalogueStep, RegisterStep, RegistrationContext, RegistrationRequirement } from './scenario-types.ts';
import type { JsonObject, JsonValue } from '../../protocol/json.ts';

/** A row before the generator computes its `expected`. */
export interface CatalogueRowSpec {
  id: string;
  category: CatalogueCategory;
  /** What the row shows and why it must come out as it does. */
  description: string;
  /** Coverage items the row proves (catalogue-coverage.ts). */
  tags: string[];
  steps: CatalogueStep[];
}

/** Every event of our catalogue fixture comes from this host, except where a row needs a second source. */
export const CATALOGUE_SOURCE = 'urn:ahp-conformance:catalogue-host';
export const OTHER_SOURCE_A = 'urn:ahp-conformance:catalogue-host:a';
export const OTHER_SOURCE_B = 'urn:ahp-conformance:catalogue-host:b';
export const CATALOGUE_TIME = '2026-04-01T10:00:00Z';

/** A row's event ids are `<row id>/<name>`; its item ids `<row id>:item:<name>`. */
export function rowWire(rowId: string) {
  const item = (name: string): string => `${rowId}:item:${name}`;
  return {
    eventId: (name: string): string => `${rowId}/${name}`,
    /** An event of `type` named `name` in this row, with the envelope every catalogue event carries. */
    event(name: string, type: string, payload: JsonObject, source: string = CATALOGUE_SOURCE): JsonObject {
      return { id: `${rowId}/${name}`, source, type, time: CATALOGUE_TIME, session: { id: 'catalogue-session' }, ...payload };
    },
    item,
    inlineText: (name: string, text: string, extra: JsonObject = {}): JsonObject => ({ id: item(name), kind: 'text', mediaType: 'text/plain', selection: 'body', text, ...extra }),
    metadataText: (name: string): JsonObject => ({ id: item(name), kind: 'text', mediaType: 'text/plain', selection: 'metadata' }),
    metadataAttachment: (name: string, mediaType: string, size: number): JsonObject => ({ id: item(name), kind: 'attachment', mediaType, selection: 'metadata', size }),
    message: (name: string, role: string, parts: JsonObject[]): JsonObject => ({ id: item(name), role, parts }),
  };
}

export function observe(event: JsonObject): JsonObject {
  return { jsonrpc: '2.0', method: 'hooks/observe', params: { protocolVersion: 'draft', event } };
}

export const notify = (event: JsonObject): CatalogueStep => ({ op: 'notify', message: observe(event) });
export const rawNotify = (event: JsonObject): CatalogueStep => ({ op: 'rawNotify', message: observe(event) });

export function register(registration: JsonValue, requirements: RegistrationRequirement[] = [], context: Partial<RegistrationContext> = {}): RegisterStep {
  return { op: 'register', registration, requirements, context: { interactive: context.interactive ?? true, environment: context.environment ?? {} } };
}
