// The client-side credential probes of the `auth` project: which cases exist per credentialed auth
// mode, which (client adapter, mode) targets a config defines, and the scenarios a probe run carries.
//
// Every case points a client adapter at a hostile endpoint the harness owns (hostile-listener.ts):
//
//   discovery-redirect-307/308   discovery and every intercept answered with a redirect to a second origin
//   intercept-redirect-307/308   discovery answered, every intercept answered with a redirect
//   token-redirect-307/308       (oauth) the client's token endpoint answers with a redirect
//   untrusted-server-certificate (mtls) the endpoint's certificate comes from an untrusted CA
//   challenge-401                every intercept answered 401 with a WWW-Authenticate challenge
//
// A client passes a case only when it follows no redirect, sends no credential to the second origin,
// refuses the untrusted server, and reports every row `failed` — never `passed`, never `{rejected:true}`.

import type { LoadedAdapter } from '../../adapters/types.ts';
import type { AuthMode } from '../../config/define-config.ts';
import type { ResolvedConfig } from '../../config/load-config.ts';
import { isJsonObject, type JsonObject } from '../../protocol/json.ts';
import type { Scenario, ScenarioFile } from '../../scenarios/types.ts';
import { probedAdapterModes, probeScenario } from './probes.ts';

/** The modes in which a client holds a credential worth probing (`none` has none). */
export const CREDENTIALED_MODES = ['bearer', 'oauth', 'mtls', 'workload'] as const satisfies readonly AuthMode[];
export type CredentialedMode = (typeof CREDENTIALED_MODES)[number];

export type ClientProbeTrap =
  /** `at`: which request of the client gets the redirect (discovery also redirects every intercept). */
  | { kind: 'redirect'; at: 'discovery' | 'intercept' | 'token'; status: 307 | 308 }
  | { kind: 'challenge' }
  | { kind: 'untrusted-certificate' };

export interface ClientProbeCase {
  /** Stable, `-t`-friendly name, e.g. `token-redirect-307`. */
  name: string;
  trap: ClientProbeTrap;
}

/** The vitest test name of every client probe (its describe is `<client> <mode>/<case>`). */
export const CLIENT_PROBE_TEST = 'client';

export function isCredentialedMode(mode: AuthMode): mode is CredentialedMode {
  return (CREDENTIALED_MODES as readonly AuthMode[]).includes(mode);
}

/** The cases of one mode, in the order they are listed; none for `none`. */
export function clientProbeCases(mode: AuthMode): ClientProbeCase[] {
  if (!isCredentialedMode(mode)) return [];
  const redirect = (at: 'discovery' | 'intercept' | 'token'): ClientProbeCase[] =>
    ([307, 308] as const).map((status) => ({ name: `${at}-redirect-${status}`, trap: { kind: 'redirect', at, status } }));
  return [
    ...redirect('discovery'),
    ...redirect('intercept'),
    ...(mode === 'oauth' ? redirect('token') : []),
    ...(mode === 'mtls' ? [{ name: 'untrusted-server-certificate', trap: { kind: 'untrusted-certificate' } } satisfies ClientProbeCase] : []),
    { name: 'challenge-401', trap: { kind: 'challenge' } },
  ];
}

export interface ClientProbeTarget {
  client: LoadedAdapter;
  mode: CredentialedMode;
  /** Set when the target never runs: the skip reason (`unsupported: …`, `inapplicable: …`). */
  skip?: string;
}

/** `<client> <mode>/<case>`: the describe of one probe, and its baseline group. */
export function clientProbeLabel(target: Pick<ClientProbeTarget, 'client' | 'mode'>, probe: ClientProbeCase): string {
  return `${target.client.name} ${target.mode}/${probe.name}`;
}

/** Every configured client adapter × every configured credentialed mode (see probedAdapterModes). */
export function planClientProbes(config: ResolvedConfig, adapters: Map<string, LoadedAdapter>): ClientProbeTarget[] {
  return probedAdapterModes(config, adapters, 'client', 'client probes').flatMap(({ adapter, mode, skip }) =>
    isCredentialedMode(mode) ? [{ client: adapter, mode, ...(skip ? { skip } : {}) }] : [],
  );
}

/**
 * The rows a probe run carries: the auth probes' positive row and, when the file has one, its first
 * plain negative row (`expectError`, no barrier, no host alternative) — the row a client that turns a
 * redirect or a 401 into `{rejected:true}` would report as passed.
 */
export function clientProbeScenarios(file: ScenarioFile, source: string): Scenario[] {
  const positive = probeScenario(file, source);
  const negative = file.scenarios.find(
    (scenario) => scenario.expectError === true && scenario.barrier === undefined && scenario.hostExpected === undefined && scenario.request.id !== positive.request.id,
  );
  return negative ? [positive, negative] : [positive];
}

/**
 * What the hostile endpoint answers to discovery: the capability set the positive row's request
 * advertises (`params.capabilities`), so the intercepts it then receives are inside what it offers.
 */
export function probeCapabilities(scenario: Scenario, source: string): JsonObject {
  const params = scenario.request.params as unknown;
  const capabilities = isJsonObject(params) ? params.capabilities : undefined;
  if (!isJsonObject(capabilities)) {
    throw new Error(`${source}: scenarios[id=${scenario.id}].request.params.capabilities: expected the capability set the client probes' endpoint advertises (an object)`);
  }
  return capabilities;
}
