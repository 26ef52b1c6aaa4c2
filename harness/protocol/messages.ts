import type { JsonObject, JsonValue } from './json.ts';

// The subset of the AHP draft wire shapes the harness reasons about. Schemas stay the authority on
// validity; these types only describe what code may read after validation.

export type PermissionState = 'none' | 'allow' | 'ask' | 'deny';
export type FlowState = 'none' | 'stop' | 'continue';
export type DeliverAt = 'now' | 'next_turn';

export interface CandidateState {
  value: JsonValue;
  provenance?: JsonObject;
}

export interface InterceptState {
  permission: PermissionState;
  candidate: CandidateState | null;
  flow?: FlowState;
  instructions?: string[];
  injections?: JsonValue[];
}

export interface ModifyAdvertisement {
  replace: boolean;
  merge: boolean;
}

export interface InterceptCapabilities {
  effects: string[];
  modify?: Record<string, ModifyAdvertisement>;
  flow?: {
    operations: Array<'stop' | 'continue'>;
    remainingContinuations?: number;
    continuationCount?: number;
    maxContinuations?: number;
  };
  inject?: { context: { append: true; deliverAt: DeliverAt[] } };
  [extra: string]: unknown;
}

export interface InterceptEvent {
  id: string;
  type: string;
  tool?: { name: string; input: JsonObject; origin: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface InterceptRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: 'hooks/intercept';
  params: {
    protocolVersion: string;
    event: InterceptEvent;
    capabilities: InterceptCapabilities;
    state?: InterceptState;
    [extra: string]: unknown;
  };
  [extra: string]: unknown;
}

export type DenyEffect = { type: 'deny'; reason: string; code?: string; extensions?: JsonObject };
export type AllowEffect = { type: 'allow' };
export type AskEffect = { type: 'ask' };
export type ModifyEffect = { type: 'modify'; target: string; operation: 'replace' | 'merge'; value: JsonValue };
export type MessageEffect = { type: 'message'; text: string };
export type ReturnEffect = { type: 'return'; value: JsonValue };
export type FlowEffect =
  | { type: 'flow'; operation: 'stop'; reason: string }
  | { type: 'flow'; operation: 'continue'; instruction?: string };
export type InjectEffect = {
  type: 'inject';
  target: 'context';
  operation: 'append';
  deliverAt: DeliverAt;
  value: JsonValue[];
};

export type Effect =
  | DenyEffect
  | AllowEffect
  | AskEffect
  | ModifyEffect
  | MessageEffect
  | ReturnEffect
  | FlowEffect
  | InjectEffect;

export type EffectType = Effect['type'];

export const EFFECT_TYPES: readonly EffectType[] = [
  'deny',
  'allow',
  'ask',
  'modify',
  'message',
  'return',
  'flow',
  'inject',
];

export interface InterceptResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result: { protocolVersion: string; effects: Effect[]; [extra: string]: unknown };
  [extra: string]: unknown;
}

export const PROTOCOL_VERSION = 'draft';

/** A `hooks/observe` notification: no JSON-RPC id, no decision; only the event as the observer sees it. */
export interface ObserveNotification {
  jsonrpc: '2.0';
  method: 'hooks/observe';
  params: {
    protocolVersion: string;
    event: InterceptEvent;
    [extra: string]: unknown;
  };
  [extra: string]: unknown;
}

/** The receiver's 201 answer to a raw content upload; only `{ref}` ever travels in event bodies. */
export interface ContentUploadReceipt {
  ref: string;
  size: number;
  /** Lowercase hex SHA-256 of the stored bytes. */
  sha256: string;
}
