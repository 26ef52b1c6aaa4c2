import type { JsonObject, JsonValue } from '../protocol/json.ts';

/**
 * Where a response was refused. `schema` covers the envelope, version and every effect's shape;
 * `correlation` the response/request id; `capability` what the request advertised (including an
 * exhausted continuation allowance); `application` staging (the fixture host's task rule).
 */
export type RejectionLayer = 'schema' | 'correlation' | 'capability' | 'application';

export const REJECTION_LAYERS: readonly RejectionLayer[] = ['schema', 'correlation', 'capability', 'application'];

export type Decision = 'allow' | 'deny' | 'ask';

/** The application result of an accepted response, with exactly the keys the seed's table defines. */
export interface ApplicationResult {
  decision: Decision;
  executed: boolean;
  /** Effective tool input; present only at tool boundaries. */
  input?: JsonObject;
  messages: string[];
  /** Selected candidate value; present only when a candidate applies. */
  result?: JsonValue;
  /** Present only when flow resolved to stop or continue. */
  flow?: 'stop' | 'continue';
  continuationInstructions?: string[];
  continuationRemaining?: number;
  /** Accepted inject effects (carried ones first); present only when there are any. */
  injections?: JsonValue[];
}

export interface Rejection {
  accepted: false;
  layer: RejectionLayer;
  reason: string;
  /** True when the only failure is the fixture host's positive-integer `task` rule. */
  hostRule?: boolean;
}

export interface Acceptance {
  accepted: true;
  result: ApplicationResult;
}

export type Verdict = Acceptance | Rejection;

export interface EvaluateOptions {
  /**
   * Apply the fixture host's positive-integer `task` input rule inside the transaction (default true).
   * false yields the SDK-level view of a host-rejected response (see `hostExpected`).
   */
  hostTaskRule?: boolean;
}

/** Every key an application result may carry, in the order the seed's expected-result table lists them. */
export const RESULT_KEYS = [
  'decision',
  'executed',
  'input',
  'messages',
  'result',
  'flow',
  'continuationInstructions',
  'continuationRemaining',
  'injections',
] as const;

/** Keys whose mere presence is an assertion: an actual result may carry them only when expected does. */
export const GUARDED_RESULT_KEYS = [
  'result',
  'flow',
  'injections',
  'continuationInstructions',
  'continuationRemaining',
  'rejected',
] as const;
