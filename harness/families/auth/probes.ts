// Raw-wire endpoint-authentication probes against a running HTTP server adapter (the `auth` project).
//
// For each (server adapter, auth mode) the probes below are sent to BOTH `GET /capabilities` and
// `POST /intercept` (carrying a real scenario's exact request), as hand-written HTTP/1.1 so duplicate
// `Authorization` fields really are separate header lines (probes-raw-http.ts). Each probe is judged
// on the wire and on the server's control endpoint:
//
//   negative  an explicit 401/403 (mtls without a verifiable client certificate: a refused TLS
//             handshake — an alert, or the server's own `/auth-stats` tlsRejections moving by exactly
//             one), zero new receipts, and a healthy server (`GET /health`);
//   positive  200 with the scenario's scripted response (JSON-equal), exactly one new receipt equal
//             to the exact request, a healthy server. Discovery: 200 with a manifest.
//
// The cases of a mode end with a positive probe, so a server that a negative broke is caught too.
// Verdicts are lists of problems that name statuses, codes and counts only: never a credential, a
// header value or a response body (they may hold secrets).

import { readFileSync } from 'node:fs';

import { boundedJsonRequest, health, receipts } from '../../adapters/control-client.ts';
import type { LoadedAdapter, ServerHandle } from '../../adapters/types.ts';
import type { AuthMode } from '../../config/define-config.ts';
import type { ResolvedConfig } from '../../config/load-config.ts';
import { boundedRequest, RequestFailure } from '../../http/bounded-request.ts';
import { isJsonObject, jsonEqual } from '../../protocol/json.ts';
import { httpServerKey, unsupportedReason } from '../../runs/plan.ts';
import type { Scenario, ScenarioFile } from '../../scenarios/types.ts';
import { allowListSkipReason } from '../../auth/allow-list.ts';
import { acquireToken } from '../../auth/acquire-token.ts';
import { STATIC_BEARER, type TokenPurpose } from '../../auth/constants.ts';
import { mintToken, NEGATIVE_TOKEN_CASES, negativeToken, type NegativeTokenCase } from '../../auth/jwt.ts';
import { UNAUTHORISED_CLIENT_PRINCIPAL } from '../../auth/pki.ts';
import type { ProbeTrust } from '../../auth/probe-trust.ts';
import { rawRequest, type RawOutcome } from './probes-raw-http.ts';

/** A bearer value no server accepts (TEST-ONLY, not a secret). */
export const WRONG_BEARER = 'TEST-ONLY-ahp-interop-wrong-bearer';

export const PROBE_ENDPOINTS = ['GET /capabilities', 'POST /intercept'] as const;
export type ProbeEndpoint = (typeof PROBE_ENDPOINTS)[number];

/** What goes into one `Authorization: Bearer …` field. */
export type ProbeCredential =
  /** The mode's valid credential: the static bearer, an issued OAuth token, the workload assertion. */
  | { kind: 'valid' }
  | { kind: 'wrong-bearer' }
  /** A negative signed token for the mode's purpose (see jwt.ts `negativeToken`). */
  | { kind: 'token'; which: NegativeTokenCase }
  /** A well-formed token of the mode's purpose whose `sub` is not an authorised principal. */
  | { kind: 'unauthorised-subject' };

/** The client identity of an mtls probe (the trusted CA always verifies the server). */
export type ProbeIdentity = 'none' | 'trusted' | 'untrusted' | 'unauthorised';

export type ProbeExpectation =
  /** Refused with one of these statuses, nothing recorded. */
  | { kind: 'refused'; statuses: readonly (401 | 403)[] }
  /** mtls: refused at the TLS handshake (or with 401/403), nothing recorded. */
  | { kind: 'handshake-refused' }
  /** 200 with the scripted response, exactly one receipt for an intercept. */
  | { kind: 'accepted' };

export interface ProbeCase {
  /** Stable, `-t`-friendly name, e.g. `duplicate-valid+wrong`. */
  name: string;
  /** One `Authorization` field line per entry, in order (none: no field). */
  authorization: readonly ProbeCredential[];
  /** mtls only. Default `trusted`. */
  identity?: ProbeIdentity;
  expect: ProbeExpectation;
  /**
   * `allow-list`: the refusal it expects is demanded only by a policy the contract's server config
   * does not carry (allow-list.ts). The probe runs only against a server that is handed that policy.
   */
  needs?: 'allow-list';
}

const CREDENTIAL_REFUSAL: ProbeExpectation = { kind: 'refused', statuses: [401, 403] };
const VALID: ProbeCredential = { kind: 'valid' };
const WRONG: ProbeCredential = { kind: 'wrong-bearer' };

function duplicates(): ProbeCase[] {
  return [
    { name: 'duplicate-valid+valid', authorization: [VALID, VALID], expect: CREDENTIAL_REFUSAL },
    { name: 'duplicate-valid+wrong', authorization: [VALID, WRONG], expect: CREDENTIAL_REFUSAL },
    { name: 'duplicate-wrong+valid', authorization: [WRONG, VALID], expect: CREDENTIAL_REFUSAL },
  ];
}

/** The probes of one auth mode, in the order they run: every negative, then the positive. */
export function probeCases(mode: AuthMode): ProbeCase[] {
  const positive: ProbeCase = { name: 'positive', authorization: mode === 'none' || mode === 'mtls' ? [] : [VALID], expect: { kind: 'accepted' } };
  switch (mode) {
    case 'none':
      // Endpoint authentication is off: any credential is ignored.
      return [{ name: 'wrong-credential-ignored', authorization: [WRONG], expect: { kind: 'accepted' } }, positive];
    case 'bearer':
      return [
        { name: 'missing-credential', authorization: [], expect: CREDENTIAL_REFUSAL },
        { name: 'wrong-bearer', authorization: [WRONG], expect: CREDENTIAL_REFUSAL },
        ...duplicates(),
        positive,
      ];
    case 'oauth':
    case 'workload':
      return [
        { name: 'missing-credential', authorization: [], expect: CREDENTIAL_REFUSAL },
        { name: 'wrong-bearer', authorization: [WRONG], expect: CREDENTIAL_REFUSAL },
        ...NEGATIVE_TOKEN_CASES.map((which): ProbeCase => ({ name: which, authorization: [{ kind: 'token', which }], expect: CREDENTIAL_REFUSAL })),
        { name: 'unauthorised-subject', authorization: [{ kind: 'unauthorised-subject' }], expect: CREDENTIAL_REFUSAL, needs: 'allow-list' },
        ...duplicates(),
        positive,
      ];
    case 'mtls':
      return [
        { name: 'no-client-certificate', authorization: [], identity: 'none', expect: { kind: 'handshake-refused' } },
        { name: 'untrusted-client-certificate', authorization: [], identity: 'untrusted', expect: { kind: 'handshake-refused' } },
        { name: 'unauthorised-principal', authorization: [], identity: 'unauthorised', expect: { kind: 'refused', statuses: [403] }, needs: 'allow-list' },
        // The certificate is the credential; Authorization fields must still be exactly zero or one.
        { name: 'duplicate-authorization', authorization: [WRONG, WRONG], identity: 'trusted', expect: CREDENTIAL_REFUSAL },
        positive,
      ];
  }
}

// ---- plan -------------------------------------------------------------------------------------------

export interface ProbeTarget {
  server: LoadedAdapter;
  mode: AuthMode;
  /** `<adapter>/<mode>`: the key of the shared server. */
  key: string;
  /** Set when the target never runs: the skip reason (`unsupported: …`, `inapplicable: …`). */
  skip?: string;
}

/** One configured adapter in one configured auth mode, for a probe family; `skip` when it never runs. */
export interface ProbedAdapterMode {
  adapter: LoadedAdapter;
  mode: AuthMode;
  /** The skip reason (`unsupported: …`, `inapplicable: …`). */
  skip?: string;
}

/**
 * Every configured adapter in one role (the servers or the clients of `pairings`, or every adapter) ×
 * every configured auth mode, in config order. A mode the adapter's adapter.json `auth` list leaves out
 * is skipped as `unsupported`; without the http transport every entry is `inapplicable` (the probes
 * are HTTP). `family` names the probes in messages.
 */
export function probedAdapterModes(config: ResolvedConfig, adapters: Map<string, LoadedAdapter>, role: 'server' | 'client', family: string): ProbedAdapterMode[] {
  const names = config.pairings ? [...new Set(config.pairings.map((pairing) => pairing[role]))] : [...adapters.keys()];
  const entries: ProbedAdapterMode[] = [];
  for (const name of names) {
    const adapter = adapters.get(name);
    if (!adapter) throw new Error(`${family}: ${role} adapter "${name}" is not loaded`);
    for (const mode of config.auth) {
      const skip = !config.transports.includes('http') ? `inapplicable: the ${family} need the http transport, which is not configured` : unsupportedReason(adapter, adapter, mode);
      entries.push({ adapter, mode, ...(skip ? { skip } : {}) });
    }
  }
  return entries;
}

/** Every configured server adapter × every configured auth mode (see probedAdapterModes). */
export function planAuthProbes(config: ResolvedConfig, adapters: Map<string, LoadedAdapter>): ProbeTarget[] {
  return probedAdapterModes(config, adapters, 'server', 'auth probes').map(({ adapter, mode, skip }) => ({
    server: adapter,
    mode,
    key: httpServerKey(adapter.name, mode),
    ...(skip ? { skip } : {}),
  }));
}

/**
 * Why `probe` never runs against `target`, or undefined when it runs: the target's own skip
 * (`unsupported`/`inapplicable` mode), else a policy the probe needs and the server is not given.
 */
export function probeSkipReason(target: ProbeTarget, probe: ProbeCase): string | undefined {
  if (target.skip) return target.skip;
  return probe.needs === 'allow-list' ? allowListSkipReason(target.server, target.mode) : undefined;
}

/** The scenario every intercept probe carries: the file's first positive row without a barrier. */
export function probeScenario(file: ScenarioFile, source: string): Scenario {
  const row = file.scenarios.find((scenario) => scenario.expected !== undefined && scenario.barrier === undefined);
  if (!row) throw new Error(`${source}: the auth probes need a positive scenario (with "expected" and no "barrier"); none found`);
  return row;
}

// ---- running probes ---------------------------------------------------------------------------------

export interface AuthStatsSnapshot {
  tlsRejections: number;
  authRejections: number;
}

/** `GET /auth-stats` on the control endpoint, or undefined when the server does not expose it. */
export async function authStats(controlEndpoint: string): Promise<AuthStatsSnapshot | undefined> {
  try {
    const url = new URL('auth-stats', controlEndpoint.endsWith('/') ? controlEndpoint : `${controlEndpoint}/`);
    const response = await boundedJsonRequest(url, 'GET', undefined, 5000);
    if (response.status !== 200) return undefined;
    const body = JSON.parse(response.text) as unknown;
    if (!isJsonObject(body) || typeof body.tlsRejections !== 'number' || typeof body.authRejections !== 'number') return undefined;
    return { tlsRejections: body.tlsRejections, authRejections: body.authRejections };
  } catch {
    return undefined;
  }
}

export interface ProbeSessionOptions {
  server: ServerHandle;
  mode: AuthMode;
  scenario: Scenario;
  trust: ProbeTrust;
  /** Bound for one raw request. Default 10000 ms. */
  requestTimeoutMs?: number;
  /** How long to wait for a refused handshake to show in `/auth-stats`. Default 2000 ms. */
  statsSettleMs?: number;
}

/**
 * The probes of one (server, mode): resolves credentials once (an OAuth token is acquired from the
 * run's issuer on first use) and judges one (case, endpoint) at a time. Probes against one server
 * must run one after another: receipts are diffed around each.
 */
export class ProbeSession {
  private valid: Promise<string> | undefined;

  constructor(private readonly options: ProbeSessionOptions) {}

  /** Sends `probe` to `endpoint`; resolves with the problems found (empty: the probe passed). */
  async run(probe: ProbeCase, endpoint: ProbeEndpoint): Promise<string[]> {
    const { server } = this.options;
    const problems: string[] = [];
    const headerLines = await this.headerLines(probe);
    const tlsOptions = this.tlsOptions(probe);
    const before = await receipts(server.controlEndpoint);
    const statsBefore = probe.expect.kind === 'handshake-refused' ? await authStats(server.controlEndpoint) : undefined;

    const outcome = await rawRequest(server.endpoint, {
      method: endpoint === 'GET /capabilities' ? 'GET' : 'POST',
      route: endpoint === 'GET /capabilities' ? '/capabilities' : '/intercept',
      headerLines,
      ...(endpoint === 'POST /intercept' ? { body: JSON.stringify(this.options.scenario.request) } : {}),
      ...(tlsOptions ? { tls: tlsOptions } : {}),
      timeoutMs: this.options.requestTimeoutMs ?? 10_000,
    });

    switch (probe.expect.kind) {
      case 'refused':
        judgeRefused(outcome, probe.expect.statuses, problems);
        break;
      case 'handshake-refused':
        await this.judgeHandshakeRefused(outcome, statsBefore, problems);
        break;
      case 'accepted':
        this.judgeAccepted(outcome, endpoint, problems);
        break;
    }

    const after = await receipts(server.controlEndpoint);
    const fresh = after.length - before.length;
    const prefixKept = before.every((receipt, i) => jsonEqual(receipt, after[i]));
    if (!prefixKept) problems.push(`the server's earlier receipts changed during the probe (GET /receipts must only grow)`);
    if (probe.expect.kind === 'accepted' && endpoint === 'POST /intercept') {
      if (fresh !== 1) problems.push(`expected exactly one new receipt (the exact request of "${this.options.scenario.id}"), got ${fresh}`);
      else if (!isExactRequest(after.at(-1), this.options.scenario)) {
        problems.push(`the new receipt is not the exact request of "${this.options.scenario.id}" (JSON-equal, or a {message} wrapper of it)`);
      }
    } else if (fresh !== 0) {
      problems.push(`expected no new receipt${probe.expect.kind === 'accepted' ? ' for discovery' : ' after a refused request'}, got ${fresh}`);
    }

    try {
      await health(server.controlEndpoint, { timeoutMs: 5000 });
    } catch (error) {
      problems.push(`the server is not healthy after the probe: ${(error as Error).message}`);
    }
    return problems;
  }

  private async headerLines(probe: ProbeCase): Promise<string[]> {
    const lines: string[] = [];
    for (const [i, credential] of probe.authorization.entries()) {
      // The second field uses another spelling: header names are case-insensitive.
      lines.push(`${i === 0 ? 'Authorization' : 'authorization'}: Bearer ${await this.credential(credential)}`);
    }
    return lines;
  }

  private credential(credential: ProbeCredential): Promise<string> | string {
    const { mode } = this.options;
    switch (credential.kind) {
      case 'wrong-bearer':
        return WRONG_BEARER;
      case 'valid':
        return (this.valid ??= this.validCredential());
      case 'token':
        return negativeToken(purposeOf(mode), credential.which).then((token) => token.token);
      case 'unauthorised-subject':
        return mintToken(purposeOf(mode), { sub: UNAUTHORISED_CLIENT_PRINCIPAL });
    }
  }

  private async validCredential(): Promise<string> {
    switch (this.options.mode) {
      case 'bearer':
        return STATIC_BEARER;
      case 'workload':
        return mintToken('workload');
      case 'oauth':
        return acquireToken(this.options.trust.tokenEndpoint);
      case 'none':
      case 'mtls':
        // Any bearer value: these modes do not authenticate with it (none ignores it, mtls uses the certificate).
        return WRONG_BEARER;
    }
  }

  private tlsOptions(probe: ProbeCase): { ca: Buffer; cert?: Buffer; key?: Buffer } | undefined {
    if (!this.options.server.endpoint.startsWith('https:')) return undefined;
    const pki = this.options.trust.pki;
    if (!pki) throw new Error(`auth probes: ${this.options.server.adapter} serves https but the run has no test PKI (mode ${this.options.mode})`);
    const ca = readFileSync(pki.caFile);
    const identity = probe.identity ?? 'trusted';
    if (identity === 'none') return { ca };
    const files = identity === 'trusted' ? pki.client : identity === 'untrusted' ? pki.untrustedClient : pki.unauthorisedClient;
    return { ca, cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
  }

  private async judgeHandshakeRefused(outcome: RawOutcome, statsBefore: AuthStatsSnapshot | undefined, problems: string[]): Promise<void> {
    if (outcome.kind === 'response') {
      if (outcome.status !== 401 && outcome.status !== 403) {
        problems.push(`expected the TLS handshake to be refused (or an explicit 401/403), got HTTP ${outcome.status}`);
      }
      return;
    }
    if (!outcome.connected) {
      problems.push(`could not connect to the AHP endpoint at all (${outcome.code}): that is not a refused handshake`);
      return;
    }
    const alert = outcome.code.startsWith('ERR_SSL_') || !outcome.secured;
    let moved: number | undefined;
    if (statsBefore) {
      // The server may count the refusal just after our socket closed: wait (bounded) for it.
      const deadline = Date.now() + (this.options.statsSettleMs ?? 2000);
      for (;;) {
        const now = await authStats(this.options.server.controlEndpoint);
        moved = now ? now.tlsRejections - statsBefore.tlsRejections : undefined;
        if (moved !== 0 || Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    if (moved !== undefined && moved > 1) {
      problems.push(`GET /auth-stats tlsRejections moved by ${moved} for one refused connection, expected exactly 1`);
    } else if (!alert && moved !== 1) {
      problems.push(
        `the connection failed (${outcome.code}) after the TLS handshake completed, with no TLS alert` +
          (moved === undefined ? ' and no /auth-stats counter to show a certificate rejection' : ' and GET /auth-stats tlsRejections did not move'),
      );
    }
  }

  private judgeAccepted(outcome: RawOutcome, endpoint: ProbeEndpoint, problems: string[]): void {
    if (outcome.kind !== 'response') {
      problems.push(`expected HTTP 200, but the request failed without a response (${outcome.code})`);
      return;
    }
    if (outcome.status !== 200) {
      problems.push(`expected HTTP 200, got HTTP ${outcome.status}`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(outcome.body);
    } catch {
      problems.push(`expected a JSON body, got ${outcome.body.length} bytes that are not JSON`);
      return;
    }
    if (endpoint === 'POST /intercept') {
      if (!jsonEqual(body, this.options.scenario.response)) {
        problems.push(`the body is not the scripted response of "${this.options.scenario.id}" (expected JSON-equal to the scenario's response)`);
      }
    } else {
      // The ecosystem's GET /capabilities answers the bare capability set; a JSON-RPC discovery
      // envelope (or its bare result) with a manifest is accepted too.
      const result = isJsonObject(body) && isJsonObject(body.result) ? body.result : body;
      const bareSet = isJsonObject(body) && Array.isArray(body.effects);
      if (!bareSet && (!isJsonObject(result) || !isJsonObject(result.manifest))) {
        problems.push('the discovery body is neither a capability set ({effects:[...]}) nor a discovery result with a manifest (result.manifest)');
      }
    }
  }
}

function judgeRefused(outcome: RawOutcome, statuses: readonly number[], problems: string[]): void {
  const wanted = statuses.map((status) => `HTTP ${status}`).join(' or ');
  if (outcome.kind !== 'response') {
    problems.push(`expected an explicit ${wanted} refusal, but the request failed without a response (${outcome.code})`);
  } else if (!statuses.includes(outcome.status)) {
    problems.push(`expected an explicit ${wanted} refusal, got HTTP ${outcome.status}`);
  }
}

function purposeOf(mode: AuthMode): TokenPurpose {
  if (mode !== 'oauth' && mode !== 'workload') throw new Error(`auth probes: signed-token probes need mode oauth or workload, not ${mode}`);
  return mode;
}

/** A receipt is the direct request envelope or a `message` wrapper carrying routing metadata. */
function isExactRequest(receipt: unknown, scenario: Scenario): boolean {
  if (jsonEqual(receipt, scenario.request)) return true;
  return isJsonObject(receipt) && !('jsonrpc' in receipt) && jsonEqual(receipt.message, scenario.request);
}
