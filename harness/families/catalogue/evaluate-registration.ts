// SDK-local registration evaluation (CATALOGUE-RULES §5.1): may a host accept this registration,
// given the manifest its receiver advertised, what the host needs from it (`requirements`) and its
// trusted local context? Any failure is `{accepted:false}` with the reason; nothing throws. Pure: no
// network and no process environment — credentials come only from `context.environment`.
//
// The checks, in §5.1's order (the first failure decides):
//  1. the registration schema (intercept needs timeout, failure policy and content and names only
//     interceptable events; observe sets neither; a managed scope is not disableable; a bearer
//     credential has exactly one reference);
//  2. backend ids are unique (not a schema rule);
//  3. the manifest supports it: transport and authentication types are advertised; every event,
//     wildcards expanded, is advertised with the subscription's mode; the timeout is within the
//     advertised limits; the scope is advertised, and a host whose policy can be disabled cannot
//     enforce a managed or non-disableable subscription;
//  4. credentials resolve from `context.environment` only: a bearer `tokenEnv` names a non-empty
//     value there; a `tokenRef` or OAuth `clientSecretRef` has no trusted resolver here; an
//     interactive OAuth flow needs an interactive context;
//  5. the requirements are met: each (event, mode) is covered by a subscription; each required effect
//     is one the manifest advertises for that event (observation takes none); `ask` also needs an
//     interactive context; each required modify operation is advertised for its target.
//
// Wildcards expand against the manifest: `*` is every event advertised with the mode, `tool.*` every
// advertised `tool.` event with it; a wildcard that selects nothing is refused (it could never deliver).

import { isJsonObject, type JsonObject, type JsonValue } from '../../protocol/json.ts';
import type { ProtocolValidators } from '../../protocol/validator-types.ts';

export interface RegistrationInput {
  registration: unknown;
  /** The `result.manifest` of the one real discovery. */
  manifest: unknown;
  requirements: unknown;
  context: unknown;
}

/** Which §5.1 check refused a registration (`unevaluable`: the input could not be read at all). */
export type RegistrationCheck = 'schema' | 'backend-ids' | 'manifest' | 'credentials' | 'requirements' | 'unevaluable';

export interface RegistrationEvaluation {
  accepted: boolean;
  /** Which check refused it and why; absent when accepted. */
  check?: RegistrationCheck;
  reason?: string;
}

export type RegistrationValidators = Pick<ProtocolValidators, 'registration'>;

export function evaluateRegistration(input: RegistrationInput, validators: RegistrationValidators): RegistrationEvaluation {
  try {
    const refused = refusal(input, validators);
    return refused === undefined ? { accepted: true } : { accepted: false, ...refused };
  } catch (error) {
    return { accepted: false, check: 'unevaluable', reason: `the registration could not be evaluated: ${error instanceof Error ? error.message : String(error)}` };
  }
}

// ---------------------------------------------------------------------------------------------------

/** The parts of a manifest and context the evaluation reads. */
interface Host {
  /** event → its advertised modes and capabilities. */
  events: Map<string, { modes: Set<string>; capabilities: JsonObject | undefined }>;
  transports: Set<string>;
  authentication: Set<string>;
  limits: { min?: number; max?: number };
  scopes: Set<string>;
  disableable: boolean;
  interactive: boolean;
  environment: JsonObject;
}

interface Subscription {
  where: string;
  mode: string;
  /** The events the subscription really selects, wildcards expanded against the manifest. */
  selects: Set<string>;
}

type Refusal = { check: RegistrationCheck; reason: string };

function refusal(input: RegistrationInput, validators: RegistrationValidators): Refusal | undefined {
  const schema = validators.registration(input.registration);
  if (!schema.valid) return { check: 'schema', reason: `the registration is not schema-valid: ${schema.errors.slice(0, 3).join('; ')}` };
  const backends = (input.registration as { hooks: JsonObject[] }).hooks;

  const ids = new Set<string>();
  for (const [index, backend] of backends.entries()) {
    const id = backend.id as string;
    if (ids.has(id)) return { check: 'backend-ids', reason: `hooks[${index}] repeats backend id ${JSON.stringify(id)}` };
    ids.add(id);
  }

  const host = readHost(input.manifest, input.context);
  if (typeof host === 'string') return { check: 'unevaluable', reason: host };
  const subscriptions: Subscription[] = [];
  for (const [index, backend] of backends.entries()) {
    const reason = manifestProblem(backend, `hooks[${index}]`, host, subscriptions);
    if (reason !== undefined) return { check: 'manifest', reason };
  }
  for (const [index, backend] of backends.entries()) {
    const reason = credentialsProblem(backend, `hooks[${index}]`, host);
    if (reason !== undefined) return { check: 'credentials', reason };
  }

  if (!Array.isArray(input.requirements)) return { check: 'requirements', reason: 'the requirements are not a list' };
  for (const [index, requirement] of input.requirements.entries()) {
    const reason = requirementProblem(requirement, `requirements[${index}]`, host, subscriptions);
    if (reason !== undefined) return { check: 'requirements', reason };
  }
  return undefined;
}

function readHost(manifest: unknown, context: unknown): Host | string {
  if (!isJsonObject(manifest) || !Array.isArray(manifest.events)) return 'the discovered manifest is missing or has no events list';
  if (!isJsonObject(context) || typeof context.interactive !== 'boolean' || !isJsonObject(context.environment)) {
    return 'the trusted context is not {interactive: boolean, environment: {...}}';
  }
  const events: Host['events'] = new Map();
  for (const entry of manifest.events) {
    if (!isJsonObject(entry) || typeof entry.event !== 'string') continue;
    const modes = new Set(Array.isArray(entry.modes) ? entry.modes.filter((m): m is string => typeof m === 'string') : []);
    events.set(entry.event, { modes, capabilities: isJsonObject(entry.capabilities) ? entry.capabilities : undefined });
  }
  const limits = isJsonObject(manifest.limits) ? manifest.limits : {};
  const policy = isJsonObject(manifest.managedPolicy) ? manifest.managedPolicy : {};
  return {
    events,
    transports: stringSet(manifest.transports),
    authentication: stringSet(manifest.authentication),
    limits: {
      ...(typeof limits.minTimeoutMs === 'number' ? { min: limits.minTimeoutMs } : {}),
      ...(typeof limits.maxTimeoutMs === 'number' ? { max: limits.maxTimeoutMs } : {}),
    },
    scopes: stringSet(policy.scopes),
    // Only an explicit `false` promises that policy cannot be disabled.
    disableable: policy.disableable !== false,
    interactive: context.interactive,
    environment: context.environment,
  };
}

function stringSet(value: JsonValue | undefined): Set<string> {
  return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
}

/** Check 3 for one backend; collects what each subscription really selects. */
function manifestProblem(backend: JsonObject, where: string, host: Host, subscriptions: Subscription[]): string | undefined {
  const transport = (backend.transport as JsonObject).type as string;
  if (!host.transports.has(transport)) return `${where} uses transport ${JSON.stringify(transport)}, which the manifest does not advertise`;
  if (isJsonObject(backend.authentication)) {
    const type = backend.authentication.type as string;
    if (!host.authentication.has(type)) return `${where} uses ${JSON.stringify(type)} authentication, which the manifest does not advertise`;
  }
  for (const [index, subscription] of (backend.subscriptions as JsonObject[]).entries()) {
    const problem = subscriptionProblem(subscription, `${where}.subscriptions[${index}]`, host, subscriptions);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function subscriptionProblem(subscription: JsonObject, where: string, host: Host, subscriptions: Subscription[]): string | undefined {
  const mode = subscription.mode as string;
  const selects = new Set<string>();
  for (const selector of subscription.events as string[]) {
    const expanded = expand(selector, mode, host);
    if (expanded.length === 0) {
      return selector.includes('*')
        ? `${where} selects ${JSON.stringify(selector)}, which matches no event the manifest advertises for ${mode}`
        : `${where} selects ${JSON.stringify(selector)}, which the manifest does not advertise for ${mode}`;
    }
    for (const event of expanded) selects.add(event);
  }
  if (typeof subscription.timeoutMs === 'number') {
    const { min, max } = host.limits;
    if ((min !== undefined && subscription.timeoutMs < min) || (max !== undefined && subscription.timeoutMs > max)) {
      return `${where} asks for timeoutMs ${subscription.timeoutMs}, outside the manifest's limits [${min ?? 0}, ${max ?? '∞'}]`;
    }
  }
  if (typeof subscription.scope === 'string' && !host.scopes.has(subscription.scope)) {
    return `${where} has scope ${JSON.stringify(subscription.scope)}, which the manifest's managed policy does not honour`;
  }
  if (host.disableable && (subscription.scope === 'managed' || subscription.disableable === false)) {
    return `${where} must not be disabled, but the host lets users disable hooks (managedPolicy.disableable is not false): unenforceable`;
  }
  subscriptions.push({ where, mode, selects });
  return undefined;
}

/** Check 4 for one backend: its endpoint credential and every subscription's upload credential. */
function credentialsProblem(backend: JsonObject, where: string, host: Host): string | undefined {
  if (isJsonObject(backend.authentication)) {
    const problem = credentialProblem(backend.authentication, `${where}.authentication`, host);
    if (problem !== undefined) return problem;
  }
  for (const [index, subscription] of (backend.subscriptions as JsonObject[]).entries()) {
    const upload = subscription.upload;
    if (!isJsonObject(upload) || !isJsonObject(upload.auth)) continue;
    const problem = credentialProblem(upload.auth, `${where}.subscriptions[${index}].upload.auth`, host);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The advertised events a selector names in `mode`. */
function expand(selector: string, mode: string, host: Host): string[] {
  const family = selector === '*' ? '' : selector.endsWith('.*') ? selector.slice(0, -1) : undefined;
  const inMode = (event: string): boolean => host.events.get(event)?.modes.has(mode) === true;
  if (family === undefined) return inMode(selector) ? [selector] : [];
  return [...host.events.keys()].filter((event) => event.startsWith(family) && inMode(event));
}

function credentialProblem(authentication: JsonObject, where: string, host: Host): string | undefined {
  if (authentication.type === 'bearer') {
    if (typeof authentication.tokenRef === 'string') return `${where} names secret reference ${JSON.stringify(authentication.tokenRef)}, which no trusted resolver can provide here`;
    const name = authentication.tokenEnv as string;
    const value = Object.hasOwn(host.environment, name) ? host.environment[name] : undefined;
    if (typeof value !== 'string' || value === '') return `${where} reads its token from ${JSON.stringify(name)}, which the trusted environment does not provide (or provides empty)`;
  }
  if (authentication.type === 'oauth') {
    if (typeof authentication.clientSecretRef === 'string') {
      return `${where} names client secret reference ${JSON.stringify(authentication.clientSecretRef)}, which no trusted resolver can provide here`;
    }
    if (authentication.flow === 'authorization_code_pkce' && !host.interactive) return `${where} needs an interactive authorization, but the context is not interactive`;
  }
  return undefined;
}

function requirementProblem(requirement: unknown, where: string, host: Host, subscriptions: readonly Subscription[]): string | undefined {
  if (!isJsonObject(requirement) || typeof requirement.event !== 'string' || (requirement.mode !== 'intercept' && requirement.mode !== 'observe')) {
    return `${where} is not {event, mode: "intercept"|"observe", effects?, modify?}`;
  }
  const { event, mode } = requirement;
  if (!subscriptions.some((s) => s.mode === mode && s.selects.has(event))) return `${where}: no subscription delivers ${event} for ${mode}`;
  const entry = host.events.get(event);
  // Observation takes no effects, whatever the event offers for interception.
  const capabilities = mode === 'intercept' && entry?.modes.has('intercept') === true ? entry.capabilities : undefined;
  const effects = stringSet(capabilities?.effects);
  const wanted = requirement.effects === undefined ? [] : requirement.effects;
  if (!Array.isArray(wanted)) return `${where}.effects is not a list`;
  for (const effect of wanted) {
    if (typeof effect !== 'string' || !effects.has(effect)) return `${where} needs effect ${JSON.stringify(effect)}, which the manifest does not advertise for ${event} ${mode}`;
    if (effect === 'ask' && !host.interactive) return `${where} needs "ask", but the context is not interactive (nobody can be asked)`;
  }
  if (requirement.modify === undefined) return undefined;
  if (!isJsonObject(requirement.modify)) return `${where}.modify is not an object`;
  const advertised = isJsonObject(capabilities?.modify) ? capabilities.modify : {};
  for (const [target, operations] of Object.entries(requirement.modify)) {
    if (!isJsonObject(operations)) return `${where}.modify.${target} is not an object`;
    for (const [operation, needed] of Object.entries(operations)) {
      if (needed !== true) continue;
      const offered = advertised[target];
      if (!effects.has('modify') || !isJsonObject(offered) || offered[operation] !== true) {
        return `${where} needs modify ${target}.${operation}, which the manifest does not advertise for ${event}`;
      }
    }
  }
  return undefined;
}
