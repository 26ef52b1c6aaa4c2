// The receiver's local subscription config (`subscriptions.json`): for each scope, how it answers.
// `append` derives a replacement from the text it receives; `effects` is a fixed effect list the
// receiver returns verbatim. The config never says what the sender should end up with.

import { readFileSync } from 'node:fs';

import { isJsonObject, type JsonValue } from '../../../harness/protocol/json.ts';

export type SubscriptionAction =
  | { kind: 'append'; target: 'instructions' | 'summary'; suffix: string }
  | { kind: 'effects'; effects: JsonValue[] };

export class SubscriptionConfigError extends Error {
  override readonly name = 'SubscriptionConfigError';
}

/** Reads and checks the config; a bad file throws naming the file, the field and what was expected. */
export function loadSubscriptions(file: string): Map<string, SubscriptionAction> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SubscriptionConfigError(`subscription config ${file} ${code ? `cannot be read (${code})` : 'is not valid JSON'}`);
  }
  if (!isJsonObject(parsed)) throw new SubscriptionConfigError(`subscription config ${file}: expected an object mapping each scope to an action`);
  const actions = new Map<string, SubscriptionAction>();
  for (const [scope, action] of Object.entries(parsed)) {
    const at = `subscription config ${file}: ${JSON.stringify(scope)}`;
    if (!isJsonObject(action)) throw new SubscriptionConfigError(`${at}: expected an action object`);
    if (action.kind === 'append') {
      if (action.target !== 'instructions' && action.target !== 'summary') throw new SubscriptionConfigError(`${at}.target: expected "instructions" or "summary"`);
      if (typeof action.suffix !== 'string') throw new SubscriptionConfigError(`${at}.suffix: expected a string`);
      actions.set(scope, { kind: 'append', target: action.target, suffix: action.suffix });
    } else if (action.kind === 'effects') {
      if (!Array.isArray(action.effects)) throw new SubscriptionConfigError(`${at}.effects: expected a list of effects`);
      actions.set(scope, { kind: 'effects', effects: action.effects });
    } else {
      throw new SubscriptionConfigError(`${at}.kind: expected "append" or "effects"`);
    }
  }
  return actions;
}
