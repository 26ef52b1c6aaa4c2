import type { JsonObject, JsonValue } from '../protocol/json.ts';
import type { InterceptRequest } from '../protocol/messages.ts';

/** One row of a central scenario file (`{version:1, scenarios:[...]}`), as the protocol defines it. */
export interface Scenario {
  id: string;
  request: InterceptRequest;
  /** The scripted response envelope, possibly deliberately invalid. */
  response: JsonValue;
  /** Partial expected application result (exclusive with expectError). */
  expected?: JsonObject;
  expectError?: true;
  /** SDK-accepted, host-rejected alternative for the task-input negatives. */
  hostExpected?: JsonObject;
  tags?: string[];
  /** A control barrier the server holds the reply behind until released. */
  barrier?: string;
  /** Unknown keys written by other tools are preserved, never interpreted. */
  [extra: string]: unknown;
}

export interface ScenarioFile {
  version: 1;
  scenarios: Scenario[];
  [extra: string]: unknown;
}

export const NEGATIVE_TAGS = [
  'schema-invalid',
  'correlation-invalid',
  'capability-invalid',
  'application-invalid',
] as const;
export type NegativeTag = (typeof NEGATIVE_TAGS)[number];
