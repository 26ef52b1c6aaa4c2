// Runs one client-side credential probe (client-probe-cases.ts): starts the hostile listeners the case
// needs, points the client adapter at them with the mode's real client credentials from the run's
// trust, runs it on the probe scenarios, and judges the outcome (client-probe-verdict.ts). Every
// listener is closed on every path; the client's process tree is ended by the probe run.
//
//   endpoint       the AHP endpoint the client is given: plain HTTP, or HTTPS with the run's server
//                  identity under mtls (with the untrusted CA's certificate for the untrusted case)
//   issuer         oauth token-redirect only: the client's configured token endpoint
//   second origin  where redirects point and the 401 challenge's resource_metadata names; it answers
//                  honestly (HTTPS with the run's server identity under mtls, so a client that
//                  follows presents its certificate)

import { readFileSync } from 'node:fs';

import type { LoadedAdapter } from '../../adapters/types.ts';
import type { JsonObject } from '../../protocol/json.ts';
import type { Scenario } from '../../scenarios/types.ts';
import { clientAuthSettings, secretsOf, type ClientAuthSettings } from '../../auth/auth-settings.ts';
import type { ClientProbeCase, CredentialedMode } from './client-probe-cases.ts';
import { runProbeClient } from './client-probe-run.ts';
import { judgeClientProbe } from './client-probe-verdict.ts';
import { STATIC_SECRETS } from '../../auth/constants.ts';
import { startHostileListener, type HostileListener, type HostileListenerOptions, type ListenerTrap } from './hostile-listener.ts';
import { mintToken } from '../../auth/jwt.ts';
import type { ProbeTrust } from '../../auth/probe-trust.ts';

export interface ClientProbeOptions {
  client: LoadedAdapter;
  mode: CredentialedMode;
  probe: ClientProbeCase;
  /** The rows the client runs (clientProbeScenarios). */
  scenarios: Scenario[];
  /** What the endpoint answers to discovery (probeCapabilities). */
  capabilities: JsonObject;
  trust: ProbeTrust;
  schemasDir: string;
  /** Parent of the run's folder (configs with credentials: a run dir removed at teardown). */
  workDir: string;
  /** Run watchdog of the client. */
  runMs: number;
}

export interface ClientProbeResult {
  /** Empty when the client passed. */
  problems: string[];
  /** The client's captured output (for keeping when the probe failed). */
  logFile: string;
}

export async function runClientProbe(options: ClientProbeOptions): Promise<ClientProbeResult> {
  const { mode, probe, trust } = options;
  const auth = await clientAuthSettings(mode, {
    ...(trust.pki ? { pki: trust.pki } : {}),
    ...(trust.tokenEndpoint ? { tokenEndpoint: trust.tokenEndpoint } : {}),
  });
  const secrets = secretsOf(...STATIC_SECRETS, auth, await mintToken('oauth'));
  const shared = { capabilities: options.capabilities, responses: new Map(options.scenarios.map((scenario) => [scenario.request.id, scenario.response])), secrets };
  const identity = mode === 'mtls' ? tlsIdentity(trust, 'server') : undefined;

  const listeners: HostileListener[] = [];
  const start = async (extra: Partial<HostileListenerOptions>): Promise<HostileListener> => {
    const listener = await startHostileListener({ ...shared, ...extra });
    listeners.push(listener);
    return listener;
  };
  try {
    const trap = probe.trap;
    const tokenRedirect = trap.kind === 'redirect' && trap.at === 'token';
    const second = trap.kind === 'untrusted-certificate' ? undefined : await start(identity && !tokenRedirect ? { tls: identity } : {});
    const issuer = tokenRedirect ? await start({ trap: { kind: 'redirect', status: trap.status, routes: ['token'], to: second!.origin } }) : undefined;

    let endpointTrap: ListenerTrap | undefined;
    if (trap.kind === 'redirect' && !tokenRedirect) {
      endpointTrap = { kind: 'redirect', status: trap.status, routes: trap.at === 'discovery' ? ['discovery', 'intercept'] : ['intercept'], to: second!.origin };
    } else if (trap.kind === 'challenge') {
      endpointTrap = { kind: 'challenge', routes: ['intercept'], challenge: `Bearer realm="ahp-interop", error="invalid_token", resource_metadata="${second!.origin}/.well-known/oauth-protected-resource"` };
    }
    const endpointTls = mode !== 'mtls' ? undefined : trap.kind === 'untrusted-certificate' ? tlsIdentity(trust, 'untrustedServer') : identity;
    const endpoint = await start({ ...(endpointTls ? { tls: endpointTls } : {}), ...(endpointTrap ? { trap: endpointTrap } : {}) });

    const clientAuth: ClientAuthSettings = issuer && auth.mode === 'oauth' ? { ...auth, tokenEndpoint: `${issuer.origin}/token` } : auth;
    const run = await runProbeClient({
      client: options.client,
      endpoint: endpoint.origin,
      auth: clientAuth,
      scenarios: options.scenarios,
      schemasDir: options.schemasDir,
      workDir: options.workDir,
      name: `${options.client.name}-${mode}-${probe.name}`,
      runMs: options.runMs,
    });
    const problems = judgeClientProbe({
      client: options.client.name,
      language: options.client.manifest.language,
      probe,
      scenarios: options.scenarios,
      run,
      endpoint: endpoint.record(),
      ...(issuer ? { issuer: issuer.record() } : {}),
      ...(second ? { secondOrigin: second.record() } : {}),
    });
    return { problems, logFile: run.logFile };
  } finally {
    await Promise.all(listeners.map((listener) => listener.close()));
  }
}

/** A server identity of the run's PKI for a listener, with the run's CA to request client certificates by. */
function tlsIdentity(trust: ProbeTrust, which: 'server' | 'untrustedServer'): { cert: Buffer; key: Buffer; ca: Buffer } {
  const pki = trust.pki;
  if (!pki) throw new Error('client probes: mode mtls needs the run\'s test PKI, which the auth globalSetup did not provide');
  return { cert: readFileSync(pki[which].certFile), key: readFileSync(pki[which].keyFile), ca: readFileSync(pki.caFile) };
}
