// Which wire binding of the elicitation bodies this process speaks (ELICITATION-RULES §14). The SDK
// adapters that exist today speak the upload binding: `kind:"elicitation.<stage>"`,
// `mediaType:"application/json"` and a `body:{ref,size,sha256}` uploaded first. The current draft
// schemas describe the inline binding instead: an ordinary text part whose `text` is the MCP JSON.
// The harness sets AHP_ELICITATION_BINDING for every process of a pair (receiver, atomic helper,
// sender); other SDKs ignore it and speak the upload binding.

export type ElicitationBinding = 'upload' | 'inline';

export const BINDING_VARIABLE = 'AHP_ELICITATION_BINDING';

/** Thrown for an unknown binding name; the message names the variable and the accepted values. */
export class BindingError extends Error {
  override readonly name = 'BindingError';
}

/** The binding the environment selects: `upload` when unset or empty. */
export function bindingFromEnvironment(env: NodeJS.ProcessEnv): ElicitationBinding {
  const value = env[BINDING_VARIABLE];
  if (value === undefined || value === '' || value === 'upload') return 'upload';
  if (value === 'inline') return 'inline';
  throw new BindingError(`${BINDING_VARIABLE} is ${JSON.stringify(value)}; expected "upload" or "inline" (unset means upload)`);
}

export type Stage = 'request' | 'result';

export const EVENT_TYPES: Record<Stage, string> = {
  request: 'user.elicitation.request',
  result: 'user.elicitation.result',
};

/** The stage an event type names, or undefined for any other type. */
export function stageOfEventType(type: unknown): Stage | undefined {
  if (type === EVENT_TYPES.request) return 'request';
  if (type === EVENT_TYPES.result) return 'result';
  return undefined;
}
