// The registration rows of our catalogue fixture: SDK-local evaluation of one registration each
// against the discovered manifest (CATALOGUE-RULES §5.1), covering every check. Receivers differ in
// what else they advertise, so every row's outcome follows from what §4 requires of every catalogue
// manifest alone: the 22 catalogue types observable and hook.failure absent, scopes exactly user and
// project, tool.before interceptable with `modify` (input merge), model.error observation only, HTTP
// and bearer advertised, policy that users can disable, no limit excluding a 500 ms timeout. Rows whose
// outcome would depend on more (stdio or OAuth advertised, other interceptable events, `ask` or `deny`
// offered) are left out, and the negative OAuth rows fail whether or not OAuth is advertised.

import type { JsonObject, JsonValue } from '../../protocol/json.ts';
import type { RegistrationContext, RegistrationRequirement } from './scenario-types.ts';
import { register, type CatalogueRowSpec } from './wire.ts';

const BACKEND_ID = 'org.ahp-conformance.catalogue-policy';
const http: JsonObject = { type: 'http', url: 'https://policy.ahp-conformance.invalid/hooks' };
const content: JsonObject = { default: 'metadata' };
const observe = (events: string[], extra: JsonObject = {}): JsonObject => ({ events, mode: 'observe', content, ...extra });
const intercept = (events: string[], extra: JsonObject = {}): JsonObject => ({ events, mode: 'intercept', timeoutMs: 500, failurePolicy: 'fail-open', content, ...extra });
const backend = (subscriptions: JsonObject[], extra: JsonObject = {}): JsonObject => ({ id: BACKEND_ID, transport: http, subscriptions, ...extra });
const registration = (...backends: JsonObject[]): JsonObject => ({ protocolVersion: 'draft', hooks: backends });
const TOKEN_ENV = 'CATALOGUE_POLICY_TOKEN';
/** A test-only value: it only has to be a non-empty string in the trusted context. */
const TOKEN_VALUE = 'TEST-ONLY-catalogue-policy-token';

interface Spec {
  name: string;
  description: string;
  tags: string[];
  registration: JsonValue;
  requirements?: RegistrationRequirement[];
  context?: Partial<RegistrationContext>;
}

const row = (spec: Spec): CatalogueRowSpec => ({
  id: `registration:${spec.name}`,
  category: 'registration',
  description: spec.description,
  tags: spec.tags,
  steps: [register(spec.registration, spec.requirements, spec.context)],
});

export function registrationRowSpecs(): CatalogueRowSpec[] {
  const specs: Spec[] = [
    // accepted
    { name: 'observe-tool-after', description: 'Observing tool.after, which every catalogue receiver advertises for observation.', tags: ['registration:accepted'], registration: registration(backend([observe(['tool.after'])])) },
    {
      name: 'intercept-tool-before',
      description: 'Intercepting tool.before with a 500 ms timeout, an explicit failure policy and a content selection.',
      tags: ['registration:accepted'],
      registration: registration(backend([intercept(['tool.before'])])),
    },
    {
      name: 'observe-family-wildcards',
      description: 'Observing whole families (`tool.*`, `task.*`): every tool and task event is a catalogue type.',
      tags: ['registration:accepted', 'registration:wildcard'],
      registration: registration(backend([observe(['tool.*', 'task.*'])])),
    },
    {
      name: 'both-modes',
      description: 'An intercept and an observe subscription for the same event coexist in one backend.',
      tags: ['registration:accepted'],
      registration: registration(backend([intercept(['tool.before'], { failurePolicy: 'fail-closed' }), observe(['tool.before'])])),
    },
    {
      name: 'unknown-fields-ignored',
      description: 'Unknown members in the document, a backend and a subscription are ignored, not refused.',
      tags: ['registration:accepted', 'registration:unknown-fields'],
      registration: { ...registration(backend([observe(['file.changed'], { label: 'local-only' })], { owner: 'platform team' })), generatedBy: 'ahp-conformance' },
    },
    {
      name: 'advertised-scopes',
      description: 'A project-scoped and a user-scoped subscription that users may disable: both scopes are advertised and nothing asks the host to prevent disabling.',
      tags: ['registration:accepted', 'registration:scope'],
      registration: registration(backend([observe(['turn.end'], { scope: 'project' }), observe(['turn.start'], { scope: 'user', disableable: true })])),
    },
    {
      name: 'token-from-context',
      description: 'A bearer token read from a variable the trusted context provides.',
      tags: ['registration:accepted', 'registration:credential-env'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV } })),
      context: { environment: { [TOKEN_ENV]: TOKEN_VALUE } },
    },
    {
      name: 'modify-input-merge',
      description: 'The host needs to merge into tool.before input, which the manifest advertises.',
      tags: ['registration:accepted', 'registration:requirement-modify'],
      registration: registration(backend([intercept(['tool.before'])])),
      requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'], modify: { input: { merge: true } } }],
    },
    {
      name: 'observation-requirement-met',
      description: 'The host needs file.changed observed, and a subscription observes it.',
      tags: ['registration:accepted', 'registration:requirement-coverage'],
      registration: registration(backend([observe(['file.changed', 'workspace.change.after'])])),
      requirements: [{ event: 'file.changed', mode: 'observe' }],
    },

    // check 1: the registration schema
    { name: 'intercept-without-timeout', description: 'Interception must set a timeout.', tags: ['registration:schema'], registration: registration(backend([withoutKey(intercept(['tool.before']), 'timeoutMs')])) },
    {
      name: 'intercept-without-failure-policy',
      description: 'Interception must set an explicit failure policy.',
      tags: ['registration:schema'],
      registration: registration(backend([withoutKey(intercept(['tool.before']), 'failurePolicy')])),
    },
    { name: 'intercept-zero-timeout', description: 'An interception timeout is a positive integer.', tags: ['registration:schema'], registration: registration(backend([intercept(['tool.before'], { timeoutMs: 0 })])) },
    {
      name: 'observe-with-failure-policy',
      description: 'Observation must not set a failure policy (nor a timeout).',
      tags: ['registration:schema'],
      registration: registration(backend([observe(['tool.after'], { failurePolicy: 'fail-closed' })])),
    },
    { name: 'intercept-observe-only-event', description: 'model.error can only be observed, never intercepted.', tags: ['registration:schema'], registration: registration(backend([intercept(['model.error'])])) },
    { name: 'content-without-default', description: 'A content selection needs a default for unlisted categories.', tags: ['registration:schema'], registration: registration(backend([observe(['tool.after'], { content: { text: 'body' } })])) },
    {
      name: 'bearer-with-two-references',
      description: 'A bearer credential names exactly one reference, not both an environment variable and a secret reference.',
      tags: ['registration:schema'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV, tokenRef: 'secrets/policy' } })),
      context: { environment: { [TOKEN_ENV]: TOKEN_VALUE } },
    },
    { name: 'backend-id-not-reverse-dns', description: 'Backend ids are reverse-DNS names.', tags: ['registration:schema'], registration: registration({ ...backend([observe(['tool.after'])]), id: 'policy' }) },

    // check 2: unique backend ids
    {
      name: 'duplicate-backend-id',
      description: 'Two backends with the same id: schema-valid, refused by the host.',
      tags: ['registration:backend-ids'],
      registration: registration(backend([observe(['tool.after'])]), backend([observe(['turn.end'])])),
    },

    // check 3: the manifest
    { name: 'unadvertised-event', description: 'hook.failure is schema-valid but no catalogue receiver advertises it.', tags: ['registration:manifest-event'], registration: registration(backend([observe(['hook.failure'])])) },
    {
      name: 'managed-scope',
      description: 'A managed subscription (not disableable): the receiver honours only user and project scopes, and lets users disable hooks.',
      tags: ['registration:scope', 'registration:unenforceable-policy'],
      registration: registration(backend([intercept(['tool.before'], { scope: 'managed', disableable: false })])),
    },
    {
      name: 'non-disableable-user-scope',
      description: 'A user-scoped subscription that must not be disabled, at a host whose policy users can disable: unenforceable.',
      tags: ['registration:unenforceable-policy'],
      registration: registration(backend([observe(['tool.after'], { scope: 'user', disableable: false })])),
    },

    // check 4: credentials only from the trusted context
    {
      name: 'token-missing-from-context',
      description: 'The bearer token variable is absent from the trusted context.',
      tags: ['registration:credential-env'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV } })),
    },
    {
      name: 'token-empty-in-context',
      description: 'The bearer token variable is present in the trusted context but empty.',
      tags: ['registration:credential-env'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: TOKEN_ENV } })),
      context: { environment: { [TOKEN_ENV]: '' } },
    },
    {
      name: 'token-not-from-process-environment',
      description: 'The token variable is PATH, which every process environment has but the trusted context does not: credentials never come from the process environment.',
      tags: ['registration:credential-env', 'registration:no-process-environment'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: 'PATH' } })),
    },
    {
      name: 'token-reference-unresolvable',
      description: 'A bearer secret reference: no trusted resolver exists for it here.',
      tags: ['registration:credential-ref'],
      registration: registration(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenRef: 'secrets/policy' } })),
    },
    {
      name: 'oauth-interactive-without-user',
      description: 'OAuth authorization code with PKCE needs a user, but the context is not interactive.',
      tags: ['registration:credential-oauth'],
      registration: registration(
        backend([observe(['tool.after'])], {
          authentication: { type: 'oauth', resource: http.url as string, issuer: 'https://issuer.ahp-conformance.invalid', clientId: 'catalogue', flow: 'authorization_code_pkce' },
        }),
      ),
      context: { interactive: false },
    },
    {
      name: 'oauth-client-secret-reference',
      description: 'An OAuth client secret reference: no trusted resolver exists for it here.',
      tags: ['registration:credential-ref'],
      registration: registration(
        backend([observe(['tool.after'])], {
          authentication: {
            type: 'oauth',
            resource: http.url as string,
            issuer: 'https://issuer.ahp-conformance.invalid',
            clientId: 'catalogue',
            clientSecretRef: 'secrets/oauth-client',
            flow: 'client_credentials',
          },
        }),
      ),
    },

    // check 5: requirements
    {
      name: 'requirement-not-subscribed',
      description: 'The host needs tool.before intercepted, but the registration only observes tool.after.',
      tags: ['registration:requirement-coverage'],
      registration: registration(backend([observe(['tool.after'])])),
      requirements: [{ event: 'tool.before', mode: 'intercept' }],
    },
    {
      name: 'requirement-other-mode',
      description: 'The host needs tool.before intercepted, but the registration only observes it.',
      tags: ['registration:requirement-coverage'],
      registration: registration(backend([observe(['tool.before'])])),
      requirements: [{ event: 'tool.before', mode: 'intercept' }],
    },
    {
      name: 'ask-without-user',
      description: 'The host needs `ask` at tool.before, but nobody can be asked (the context is not interactive).',
      tags: ['registration:requirement-ask'],
      registration: registration(backend([intercept(['tool.before'])])),
      requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['ask'] }],
      context: { interactive: false },
    },
    {
      name: 'effect-on-observation',
      description: 'The host needs `deny` on model.error, which is observation only and takes no effects.',
      tags: ['registration:requirement-effect'],
      registration: registration(backend([observe(['model.error'])])),
      requirements: [{ event: 'model.error', mode: 'observe', effects: ['deny'] }],
    },
    {
      name: 'modify-unknown-target',
      description: 'The host needs to replace a modify target no boundary has.',
      tags: ['registration:requirement-modify'],
      registration: registration(backend([intercept(['tool.before'])])),
      requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'], modify: { environment: { replace: true } } }],
    },
  ];
  return specs.map(row);
}

function withoutKey(value: JsonObject, key: string): JsonObject {
  const copy = { ...value };
  delete copy[key];
  return copy;
}
