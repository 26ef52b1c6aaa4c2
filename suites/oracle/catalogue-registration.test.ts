// SDK-local registration evaluation (CATALOGUE-RULES §5.1): every registration row of §8 (written
// here in our own words), each check with the edge cases around it, that nothing ever throws and
// that credentials never come from the process environment; and the reproduction of the canonical
// catalogue file's `registrations` against our reference manifest.

import path from 'node:path';

import { afterEach, describe, expect, test } from 'vitest';

import { evaluateRegistration, type RegistrationCheck } from '../../harness/families/catalogue/evaluate-registration.ts';
import { buildCatalogueManifest, catalogueDiscoveryResponse } from '../../harness/families/catalogue/reference-manifest.ts';
import type { RegistrationRequirement } from '../../harness/families/catalogue/scenario-types.ts';
import { canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import { CANONICAL_CATALOGUE, SCHEMA_SETS, canonicalCatalogueTitle } from './support/catalogue-sources.ts';

const ours = loadValidators(path.join(PROJECT_ROOT, 'schemas'));
const canonicalSchemas = canonicalSchemaDir();

const http: JsonObject = { type: 'http', url: 'https://hooks.registration-test.invalid/ahp' };
const content: JsonObject = { default: 'metadata' };
const observe = (events: string[], extra: JsonObject = {}): JsonObject => ({ events, mode: 'observe', content, ...extra });
const intercept = (events: string[], extra: JsonObject = {}): JsonObject => ({ events, mode: 'intercept', timeoutMs: 500, failurePolicy: 'fail-closed', content, ...extra });
const backend = (subscriptions: JsonObject[], extra: JsonObject = {}): JsonObject => ({ id: 'net.registration-test.policy', transport: http, subscriptions, ...extra });
const doc = (...backends: JsonObject[]): JsonObject => ({ protocolVersion: 'draft', hooks: backends });
const bearerEnv = (name: string): JsonObject => ({ type: 'bearer', tokenEnv: name });
const oauth = (extra: JsonObject): JsonObject => ({ type: 'oauth', resource: 'https://hooks.registration-test.invalid/ahp', issuer: 'https://issuer.registration-test.invalid', clientId: 'c', ...extra });

interface Input {
  registration: unknown;
  requirements?: RegistrationRequirement[] | unknown;
  interactive?: boolean;
  environment?: Record<string, string>;
  manifest?: unknown;
}

function evaluate(input: Input) {
  return evaluateRegistration(
    {
      registration: input.registration,
      manifest: input.manifest === undefined ? buildCatalogueManifest() : input.manifest,
      requirements: input.requirements ?? [],
      context: { interactive: input.interactive ?? true, environment: input.environment ?? {} },
    },
    ours,
  );
}
/** `accepted` or the check that refused it. */
const outcome = (input: Input): 'accepted' | RegistrationCheck => {
  const result = evaluate(input);
  if (result.accepted) {
    expect(result.reason).toBeUndefined();
    return 'accepted';
  }
  expect(result.reason, 'a refusal says why').toMatch(/\w/);
  return result.check!;
};
const manifestWith = (change: (m: JsonObject) => void): JsonObject => {
  const m = buildCatalogueManifest();
  change(m);
  return m;
};

test('the reference manifest is a valid capabilities response under our schemas (and the canonical ones when present)', () => {
  expect(ours.capabilitiesResponse(catalogueDiscoveryResponse('d')).errors).toEqual([]);
  if (canonicalSchemas) expect(loadValidators(canonicalSchemas).capabilitiesResponse(catalogueDiscoveryResponse('d')).errors).toEqual([]);
});

describe('the registration rows of CATALOGUE-RULES §8, against a manifest meeting §4', () => {
  test.each<[string, Input, 'accepted' | RegistrationCheck]>([
    ['observe tool.after', { registration: doc(backend([observe(['tool.after'])])) }, 'accepted'],
    ['intercept tool.before, 500 ms, fail-closed', { registration: doc(backend([intercept(['tool.before'])])) }, 'accepted'],
    ['a duplicate backend id (schema-valid)', { registration: doc(backend([observe(['tool.after'])]), backend([observe(['tool.after'])])) }, 'backend-ids'],
    ['intercept without failurePolicy', { registration: doc(backend([(({ failurePolicy: _f, ...rest }) => rest)(intercept(['tool.before']))])) }, 'schema'],
    ['observe with timeoutMs 100', { registration: doc(backend([observe(['tool.after'], { timeoutMs: 100 })])) }, 'schema'],
    ['observe hook.failure (schema-valid, not advertised)', { registration: doc(backend([observe(['hook.failure'])])) }, 'manifest'],
    ['intercept model.error (observation only)', { registration: doc(backend([intercept(['model.error'])])) }, 'schema'],
    ['ask required without an interactive context', { registration: doc(backend([intercept(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['ask'] }], interactive: false }, 'requirements'],
    ['modify input merge required', { registration: doc(backend([intercept(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'], modify: { input: { merge: true } } }] }, 'accepted'],
    ['modify of target "nonexistent" required', { registration: doc(backend([intercept(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'], modify: { nonexistent: { replace: true } } }] }, 'requirements'],
    ['bearer tokenEnv resolved from the context', { registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv('CATALOGUE_TOKEN') })), environment: { CATALOGUE_TOKEN: 'TEST-ONLY-x' } }, 'accepted'],
    ['bearer tokenEnv with an empty context', { registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv('CATALOGUE_TOKEN') })) }, 'credentials'],
    ['managed scope, not disableable, at a host that lets users disable', { registration: doc(backend([intercept(['tool.before'], { scope: 'managed', disableable: false })])) }, 'manifest'],
  ])('%s', (_name, input, wanted) => {
    expect(outcome(input)).toBe(wanted);
  });
});

describe('check 1: the schema', () => {
  test.each<[string, unknown]>([
    ['no hooks', doc()],
    ['a backend id that is not reverse-DNS', doc({ ...backend([observe(['tool.after'])]), id: 'policy' })],
    ['bearer with both references', doc(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenEnv: 'A', tokenRef: 'secrets/a' } }))],
    ['authentication on a stdio backend', doc(backend([observe(['tool.after'])], { transport: { type: 'stdio', command: 'x', lifecycle: 'persistent' }, authentication: bearerEnv('A') }))],
    ['a subscription without content', doc(backend([{ events: ['tool.after'], mode: 'observe' }]))],
    ['a registration that is not an object', 'hooks'],
    ['null', null],
  ])('%s is refused by the schema', (_name, registration) => {
    expect(outcome({ registration })).toBe('schema');
  });

  test('unknown members are ignored', () => {
    expect(outcome({ registration: { ...doc(backend([observe(['tool.after'], { note: 'x' })], { owner: 'y' })), comment: 'z' } })).toBe('accepted');
  });
});

describe('check 3: the manifest', () => {
  test.each<[string, Input, 'accepted' | RegistrationCheck]>([
    ['a stdio backend at a host that advertises only http', { registration: doc(backend([observe(['tool.after'])], { transport: { type: 'stdio', command: 'x', lifecycle: 'persistent' } })), manifest: manifestWith((m) => (m.transports = ['http'])) }, 'manifest'],
    ['a stdio backend at a host that advertises stdio', { registration: doc(backend([observe(['tool.after'])], { transport: { type: 'stdio', command: 'x', lifecycle: 'persistent' } })) }, 'accepted'],
    ['OAuth at a host that advertises only bearer', { registration: doc(backend([observe(['tool.after'])], { authentication: oauth({ flow: 'client_credentials' }) })), manifest: manifestWith((m) => (m.authentication = ['bearer'])) }, 'manifest'],
    ['observe every event (`*` expands to what is advertised for observation)', { registration: doc(backend([observe(['*'])])) }, 'accepted'],
    ['intercept every tool event (`tool.*` expands to the interceptable tool.before only)', { registration: doc(backend([intercept(['tool.*'])])) }, 'accepted'],
    ['intercept every turn event (nothing of that family is interceptable here)', { registration: doc(backend([intercept(['turn.*'])])) }, 'manifest'],
    ['intercept turn.finish.before (interceptable in general, not advertised here)', { registration: doc(backend([intercept(['turn.finish.before'])])) }, 'manifest'],
    ['a 500 ms timeout below the advertised minimum', { registration: doc(backend([intercept(['tool.before'])])), manifest: manifestWith((m) => (m.limits = { minTimeoutMs: 1000 })) }, 'manifest'],
    ['a 500 ms timeout above the advertised maximum', { registration: doc(backend([intercept(['tool.before'])])), manifest: manifestWith((m) => (m.limits = { maxTimeoutMs: 100 })) }, 'manifest'],
    ['a 500 ms timeout at a host without timeout limits', { registration: doc(backend([intercept(['tool.before'])])), manifest: manifestWith((m) => (m.limits = {})) }, 'accepted'],
    ['a 500 ms timeout exactly at both limits', { registration: doc(backend([intercept(['tool.before'])])), manifest: manifestWith((m) => (m.limits = { minTimeoutMs: 500, maxTimeoutMs: 500 })) }, 'accepted'],
    ['a project scope at a host that honours only user', { registration: doc(backend([observe(['tool.after'], { scope: 'project' })])), manifest: manifestWith((m) => (m.managedPolicy = { scopes: ['user'], disableable: true })) }, 'manifest'],
    ['a user scope that must not be disabled, at a host that lets users disable', { registration: doc(backend([observe(['tool.after'], { scope: 'user', disableable: false })])) }, 'manifest'],
    [
      'a managed subscription at a host that enforces managed policy',
      { registration: doc(backend([intercept(['tool.before'], { scope: 'managed', disableable: false })])), manifest: manifestWith((m) => (m.managedPolicy = { scopes: ['user', 'project', 'managed'], disableable: false })) },
      'accepted',
    ],
  ])('%s', (_name, input, wanted) => {
    expect(outcome(input)).toBe(wanted);
  });
});

describe('check 4: credentials come only from the trusted context', () => {
  const PROBE = 'AHP_CONFORMANCE_REGISTRATION_PROBE';
  afterEach(() => {
    delete process.env[PROBE];
  });

  test('a variable of the process environment that the context lacks does not resolve', () => {
    process.env[PROBE] = 'TEST-ONLY-process-value';
    expect(outcome({ registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv(PROBE) })) })).toBe('credentials');
    expect(outcome({ registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv(PROBE) })), environment: { [PROBE]: 'TEST-ONLY-context-value' } })).toBe('accepted');
  });

  test.each<[string, Input, 'accepted' | RegistrationCheck]>([
    ['an empty token in the context', { registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv('T') })), environment: { T: '' } }, 'credentials'],
    ['a token under another name', { registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv('T') })), environment: { OTHER: 'x' } }, 'credentials'],
    ['a name inherited from Object.prototype', { registration: doc(backend([observe(['tool.after'])], { authentication: bearerEnv('constructor') })) }, 'credentials'],
    ['a bearer secret reference', { registration: doc(backend([observe(['tool.after'])], { authentication: { type: 'bearer', tokenRef: 'secrets/policy' } })) }, 'credentials'],
    ['an OAuth client secret reference', { registration: doc(backend([observe(['tool.after'])], { authentication: oauth({ flow: 'client_credentials', clientSecretRef: 'secrets/c' }) })) }, 'credentials'],
    ['OAuth authorization code with PKCE, not interactive', { registration: doc(backend([observe(['tool.after'])], { authentication: oauth({ flow: 'authorization_code_pkce' }) })), interactive: false }, 'credentials'],
    ['OAuth authorization code with PKCE, interactive', { registration: doc(backend([observe(['tool.after'])], { authentication: oauth({ flow: 'authorization_code_pkce' }) })) }, 'accepted'],
    ['OAuth client credentials without a secret reference', { registration: doc(backend([observe(['tool.after'])], { authentication: oauth({ flow: 'client_credentials' }) })) }, 'accepted'],
    [
      'an upload credential that is a secret reference',
      { registration: doc(backend([observe(['tool.after'], { upload: { endpoint: 'https://uploads.registration-test.invalid', timeoutMs: 1000, maxBytes: 10, auth: { type: 'bearer', tokenRef: 'secrets/u' } } })])) },
      'credentials',
    ],
  ])('%s', (_name, input, wanted) => {
    expect(outcome(input)).toBe(wanted);
  });

  test('manifest problems are found before credential problems (§5.1 order)', () => {
    expect(outcome({ registration: doc(backend([observe(['hook.failure'])], { authentication: bearerEnv('MISSING') })) })).toBe('manifest');
  });
});

describe('check 5: requirements', () => {
  const interceptsToolBefore = doc(backend([intercept(['tool.before'])]));
  test.each<[string, Input, 'accepted' | RegistrationCheck]>([
    ['no requirements', { registration: interceptsToolBefore }, 'accepted'],
    ['a requirement no subscription delivers', { registration: doc(backend([observe(['tool.after'])])), requirements: [{ event: 'tool.before', mode: 'intercept' }] }, 'requirements'],
    ['a requirement of the other mode', { registration: doc(backend([observe(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'intercept' }] }, 'requirements'],
    ['a requirement covered through a family wildcard', { registration: doc(backend([observe(['task.*'])])), requirements: [{ event: 'task.change.after', mode: 'observe' }] }, 'accepted'],
    ['a requirement covered by a second backend', { registration: doc(backend([observe(['tool.after'])]), { ...backend([intercept(['tool.before'])]), id: 'net.registration-test.other' }), requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['deny'] }] }, 'accepted'],
    ['an advertised effect (deny)', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['deny'] }] }, 'accepted'],
    ['an effect the manifest does not advertise at tool.before (return)', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['return'] }] }, 'requirements'],
    ['ask with an interactive context', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['ask'] }] }, 'accepted'],
    ['an effect on an observation (tool.before can be intercepted, but this is observe)', { registration: doc(backend([observe(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'observe', effects: ['deny'] }] }, 'requirements'],
    ['an effect on an observe-only event', { registration: doc(backend([observe(['model.error'])])), requirements: [{ event: 'model.error', mode: 'observe', effects: ['deny'] }] }, 'requirements'],
    ['modify replace where the manifest offers only merge', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', modify: { input: { replace: true } } }], manifest: manifestWith((m) => (((m.events as JsonObject[])[0]!.capabilities as JsonObject).modify = { input: { replace: false, merge: true } })) }, 'requirements'],
    ['a modify operation marked false asks for nothing', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', modify: { output: { replace: false } } }] }, 'accepted'],
    ['modify where the manifest lists no modify effect', { registration: interceptsToolBefore, requirements: [{ event: 'tool.before', mode: 'intercept', modify: { input: { merge: true } } }], manifest: manifestWith((m) => ((m.events as JsonObject[])[0]!.capabilities = { effects: ['deny'] })) }, 'requirements'],
  ])('%s', (_name, input, wanted) => {
    expect(outcome(input)).toBe(wanted);
  });
});

describe('no exception escapes', () => {
  const registration = doc(backend([observe(['tool.after'])]));
  test.each<[string, () => ReturnType<typeof evaluateRegistration>]>([
    ['a manifest that is null', () => evaluate({ registration, manifest: null })],
    ['a manifest without events', () => evaluate({ registration, manifest: { transports: ['http'] } })],
    ['a manifest whose events are garbage', () => evaluate({ registration, manifest: { events: [1, 'x', { event: 7 }], transports: 'http' } })],
    ['a context that is missing', () => evaluateRegistration({ registration, manifest: buildCatalogueManifest(), requirements: [], context: undefined }, ours)],
    ['an environment that is a string', () => evaluateRegistration({ registration, manifest: buildCatalogueManifest(), requirements: [], context: { interactive: true, environment: 'X=1' } }, ours)],
    ['requirements that are not a list', () => evaluate({ registration, requirements: { event: 'tool.after' } })],
    ['a requirement without a mode', () => evaluate({ registration, requirements: [{ event: 'tool.after' }] })],
    ['a requirement whose modify is a list', () => evaluate({ registration: doc(backend([intercept(['tool.before'])])), requirements: [{ event: 'tool.before', mode: 'intercept', modify: ['input'] }] })],
    ['a validator that throws', () => evaluateRegistration({ registration, manifest: buildCatalogueManifest(), requirements: [], context: { interactive: true, environment: {} } }, { registration: () => { throw new Error('boom'); } })],
  ])('%s is a refusal with a reason', (_name, call) => {
    const result = call();
    expect(result.accepted).toBe(false);
    expect(result.reason).toMatch(/\w/);
  });

  test('the inputs are not modified', () => {
    const input = { registration: doc(backend([intercept(['tool.*'])])), manifest: buildCatalogueManifest(), requirements: [{ event: 'tool.before', mode: 'intercept', effects: ['modify'] }], context: { interactive: true, environment: { A: 'b' } } };
    const copy = cloneJson(input);
    evaluateRegistration(input, ours);
    expect(input).toEqual(copy);
  });
});

// ---------------------------------------------------------------------------------------------------

describe.skipIf(CANONICAL_CATALOGUE === undefined)(canonicalCatalogueTitle("the canonical catalogue file's registrations"), () => {
  const rows = CANONICAL_CATALOGUE?.scenarios ?? [];
  for (const [name, dir] of SCHEMA_SETS) {
    test.skipIf(dir === undefined)(`the evaluator reproduces every row's registrations against the reference manifest with ${name}`, () => {
      const validators = loadValidators(dir as string);
      const manifest = buildCatalogueManifest();
      const got = rows.map((row) => ({
        id: row.id,
        registrations: row.steps.flatMap((step) =>
          step.op === 'register' ? [{ accepted: evaluateRegistration({ registration: step.registration, manifest, requirements: step.requirements, context: step.context }, validators).accepted }] : [],
        ),
      }));
      expect(got).toEqual(rows.map((row) => ({ id: row.id, registrations: row.expected.registrations })));
      expect(rows.filter((row) => row.category === 'registration')).toHaveLength(13);
    });
  }
});
