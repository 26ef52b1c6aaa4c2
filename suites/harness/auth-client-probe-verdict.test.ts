// The client probes' verdict (harness/families/auth/client-probe-verdict.ts), on hand-made evidence: an honest
// client passes every case, and each deliberately wrong piece of evidence — a followed redirect, a
// credential sent where a challenge pointed, a certificate offered to the second origin, a handshake
// with the untrusted endpoint, a row reported passed or `{rejected:true}`, an exit code the report
// contradicts, a client that never reached the trap, a missing or malformed report — is caught with
// its label, naming the client. Also the cases and the plan: which (client, mode) targets a config
// defines, and which rows a probe run carries.

import { describe, expect, test } from 'vitest';

import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { clientProbeCases, clientProbeScenarios, planClientProbes, probeCapabilities, type ClientProbeCase } from '../../harness/families/auth/client-probe-cases.ts';
import { AUTH_MODES, type AuthMode } from '../../harness/config/define-config.ts';
import { judgeClientProbe, type ClientProbeEvidence } from '../../harness/families/auth/client-probe-verdict.ts';
import type { ListenerRecord, RecordedRequest } from '../../harness/families/auth/hostile-listener.ts';
import type { Scenario } from '../../harness/scenarios/types.ts';
import { resolvedConfig } from './support/resolved-config.ts';
import { okResponse, toolBeforeRequest } from './support/intercept-messages.ts';

const POSITIVE: Scenario = {
  id: 'probe.positive',
  request: toolBeforeRequest('probe.positive', { effects: ['allow'] }),
  response: okResponse('probe.positive', []),
  expected: { decision: 'allow' },
};
const NEGATIVE: Scenario = {
  id: 'probe.negative',
  request: toolBeforeRequest('probe.negative', { effects: ['allow'] }),
  response: okResponse('probe.negative', [{ type: 'explode' }]),
  expectError: true,
};
const BEARER = 'Authorization header (Bearer, 43 chars) carrying a static bearer token (36 chars)';

const empty = (): ListenerRecord => ({ connections: 0, handshakes: [], requests: [] });
const request = (method: string, path: string, trapped: boolean, credentials: string[] = [], status = trapped ? 307 : 200): RecordedRequest => ({ method, path, status, trapped, credentials });
const failedRows = () => ({
  language: 'typescript',
  results: [
    { id: POSITIVE.id, status: 'failed', actual: null, error: 'discovery: transport: HTTP status 307' },
    { id: NEGATIVE.id, status: 'failed', actual: null, error: 'discovery: transport: HTTP status 307' },
  ],
});

function probe(mode: 'bearer' | 'oauth' | 'mtls', name: string): ClientProbeCase {
  const found = clientProbeCases(mode).find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no case ${mode}/${name}`);
  return found;
}

/** What an honest client leaves behind in `probe`: every row failed, exit 1, the trap sprung, nothing elsewhere. */
function honest(testCase: ClientProbeCase): ClientProbeEvidence {
  const evidence: ClientProbeEvidence = {
    client: 'careful',
    language: 'typescript',
    probe: testCase,
    scenarios: [POSITIVE, NEGATIVE],
    run: { report: failedRows(), exit: { code: 1, signal: null }, timedOut: false, failures: [] },
    endpoint: empty(),
    secondOrigin: empty(),
  };
  const trap = testCase.trap;
  if (trap.kind === 'redirect' && trap.at === 'token') evidence.issuer = { ...empty(), connections: 1, requests: [request('POST', '/token', true)] };
  else if (trap.kind === 'redirect') evidence.endpoint = { ...empty(), connections: 1, requests: [request(trap.at === 'discovery' ? 'GET' : 'POST', trap.at === 'discovery' ? '/capabilities' : '/intercept', true, [BEARER])] };
  else if (trap.kind === 'challenge') evidence.endpoint = { ...empty(), connections: 1, requests: [request('GET', '/capabilities', false), request('POST', '/intercept', true, [BEARER], 401)] };
  else {
    evidence.endpoint = { ...empty(), connections: 1 };
    delete evidence.secondOrigin;
  }
  return evidence;
}

describe('an honest client passes', () => {
  test.each([
    ...clientProbeCases('bearer').map((testCase) => ['bearer', testCase] as const),
    ...clientProbeCases('oauth').map((testCase) => ['oauth', testCase] as const),
    ...clientProbeCases('mtls').map((testCase) => ['mtls', testCase] as const),
  ])('%s/%s', (_mode, testCase) => {
    expect(judgeClientProbe(honest(testCase))).toEqual([]);
  });

  test('a credential-free fetch of the challenge\'s resource metadata is no leak', () => {
    const evidence = honest(probe('bearer', 'challenge-401'));
    evidence.secondOrigin = { ...empty(), connections: 1, requests: [request('GET', '/.well-known/oauth-protected-resource', false, [], 404)] };
    expect(judgeClientProbe(evidence)).toEqual([]);
  });
});

describe('each wrong piece of evidence is caught', () => {
  test('a followed redirect, with what arrived at the second origin', () => {
    const evidence = honest(probe('bearer', 'discovery-redirect-308'));
    evidence.secondOrigin = { ...empty(), connections: 1, requests: [request('GET', '/capabilities', false, [BEARER])] };
    expect(judgeClientProbe(evidence)).toEqual([
      `[probe/followed-redirect] client fault: client "careful" followed a 308 redirect of discovery (and of every intercept) to a second origin: the second origin received GET /capabilities carrying ${BEARER}`,
    ]);
  });

  test('a redirect followed without the credential is still followed', () => {
    const evidence = honest(probe('oauth', 'intercept-redirect-307'));
    evidence.secondOrigin = { ...empty(), connections: 1, requests: [request('POST', '/intercept', false)] };
    expect(judgeClientProbe(evidence)).toEqual([
      '[probe/followed-redirect] client fault: client "careful" followed a 307 redirect of every intercept to a second origin: the second origin received POST /intercept carrying no credential',
    ]);
  });

  test('a token request re-posted to the second origin', () => {
    const evidence = honest(probe('oauth', 'token-redirect-307'));
    evidence.secondOrigin = { ...empty(), connections: 1, requests: [request('POST', '/token', false, ['client_id form field (18 chars)', 'client_secret form field (35 chars)'])] };
    expect(judgeClientProbe(evidence)).toEqual([
      '[probe/followed-redirect] client fault: client "careful" followed a 307 redirect of its token request to a second origin: the second origin received POST /token carrying client_id form field (18 chars), client_secret form field (35 chars)',
    ]);
  });

  test('a credential sent where the challenge pointed', () => {
    const evidence = honest(probe('bearer', 'challenge-401'));
    evidence.secondOrigin = { ...empty(), connections: 1, requests: [request('GET', '/.well-known/oauth-protected-resource', false, [BEARER], 404)] };
    expect(judgeClientProbe(evidence)).toEqual([
      `[probe/credential-leak] client fault: client "careful" sent credentials to the origin the 401 challenge named (resource_metadata): GET /.well-known/oauth-protected-resource carrying ${BEARER}`,
    ]);
  });

  test('a client certificate offered to the second origin without a request', () => {
    const evidence = honest(probe('mtls', 'discovery-redirect-307'));
    evidence.secondOrigin = { connections: 1, handshakes: [{ clientCertificate: 'ahp-interop-client' }], requests: [] };
    expect(judgeClientProbe(evidence)).toEqual(['[probe/credential-leak] client fault: client "careful" presented its client certificate (CN=ahp-interop-client) to the second origin']);
  });

  test('a handshake with the untrusted endpoint, and what the client sent it', () => {
    const evidence = honest(probe('mtls', 'untrusted-server-certificate'));
    evidence.endpoint = { connections: 1, handshakes: [{ clientCertificate: 'ahp-interop-client' }], requests: [request('GET', '/capabilities', false, ['client certificate (CN=ahp-interop-client)'])] };
    expect(judgeClientProbe(evidence)).toEqual([
      '[probe/untrusted-server] client fault: client "careful" completed a TLS handshake with an endpoint whose certificate the run\'s CA did not issue, presenting its client certificate (CN=ahp-interop-client)',
      '[probe/untrusted-server] client fault: client "careful" sent GET /capabilities carrying client certificate (CN=ahp-interop-client) to the untrusted endpoint',
    ]);
  });

  test('rows reported passed, or failed with {rejected:true}', () => {
    const evidence = honest(probe('bearer', 'challenge-401'));
    evidence.run.report = {
      language: 'typescript',
      results: [
        { id: POSITIVE.id, status: 'failed', actual: { rejected: true } },
        { id: NEGATIVE.id, status: 'passed', actual: { rejected: true } },
      ],
    };
    const rejected = (id: string) =>
      `[report/rejected] client fault: client "careful" reported row "${id}" with actual {"rejected":true}: facing a 401 with a WWW-Authenticate challenge on every intercept, the row must fail as a transport failure, not as a rejected response (a negative row would count {"rejected":true} as a pass)`;
    expect(judgeClientProbe(evidence)).toEqual([
      rejected(POSITIVE.id),
      `[report/status] client fault: client "careful" reported row "${NEGATIVE.id}" as "passed": facing a 401 with a WWW-Authenticate challenge on every intercept, every row must be reported failed`,
      rejected(NEGATIVE.id),
    ]);
  });

  test('an exit code of 0 beside failed rows', () => {
    const evidence = honest(probe('bearer', 'intercept-redirect-308'));
    evidence.run.exit = { code: 0, signal: null };
    expect(judgeClientProbe(evidence)).toEqual(['[run/exit] client fault: client "careful" exited 0 although its report has a failed row']);
  });

  test('a client that never reached the trap', () => {
    const cases: Array<[ClientProbeCase, (evidence: ClientProbeEvidence) => void, string]> = [
      [probe('bearer', 'discovery-redirect-307'), (evidence) => (evidence.endpoint = empty()), 'sent no request to its configured endpoint'],
      [probe('bearer', 'intercept-redirect-307'), (evidence) => (evidence.endpoint = { ...empty(), requests: [request('GET', '/capabilities', false)] }), 'sent no intercept to its configured endpoint'],
      [probe('oauth', 'token-redirect-308'), (evidence) => (evidence.issuer = empty()), 'sent no token request to its configured token endpoint'],
      [probe('bearer', 'challenge-401'), (evidence) => (evidence.endpoint = empty()), 'sent no intercept to its configured endpoint'],
      [probe('mtls', 'untrusted-server-certificate'), (evidence) => (evidence.endpoint = empty()), 'never connected to its configured endpoint'],
    ];
    for (const [testCase, spoil, missing] of cases) {
      const evidence = honest(testCase);
      spoil(evidence);
      const problems = judgeClientProbe(evidence);
      expect(problems, testCase.name).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^\\[probe/not-exercised\\] client fault: client "careful" ${missing}, so the probe saw nothing of how it handles `));
    }
  });

  test('no report, a failed run, and a malformed report, each naming the client', () => {
    const evidence = honest(probe('bearer', 'challenge-401'));
    evidence.run = { report: undefined, exit: { code: null, signal: 'SIGKILL' }, timedOut: true, failures: ['[run/timeout] client "careful" did not finish within the run watchdog (100 ms)', '[report/missing] client "careful": report file /x was not written'] };
    expect(judgeClientProbe(evidence)).toEqual([
      '[run/timeout] client fault: client "careful" did not finish within the run watchdog (100 ms)',
      '[report/missing] client fault: client "careful": report file /x was not written',
    ]);

    const malformed = honest(probe('bearer', 'challenge-401'));
    malformed.run.report = { language: 'python', results: [{ id: POSITIVE.id, status: 'failed', actual: null }] };
    expect(judgeClientProbe(malformed)).toEqual([
      '[report/language] client fault: client "careful": report.language is "python", expected "typescript" (the client adapter.json language)',
      `[report/missing] client fault: client "careful": no row for 1 selected scenario(s): ${NEGATIVE.id}`,
    ]);
  });
});

describe('cases and plan', () => {
  const adapter = (name: string, auth?: AuthMode[]): LoadedAdapter => ({
    name,
    cwd: `/sdk/${name}`,
    adapterFile: `/sdk/${name}/interop/adapter.json`,
    manifest: { language: name, server: ['server'], client: ['client'], ...(auth ? { auth } : {}) },
  });
  const config = resolvedConfig;
  const all = (list: LoadedAdapter[]) => new Map(list.map((entry) => [entry.name, entry]));

  test('the cases of each mode; none for none', () => {
    const names = Object.fromEntries(AUTH_MODES.map((mode) => [mode, clientProbeCases(mode).map((testCase) => testCase.name)]));
    const redirects = ['discovery-redirect-307', 'discovery-redirect-308', 'intercept-redirect-307', 'intercept-redirect-308'];
    expect(names).toEqual({
      none: [],
      bearer: [...redirects, 'challenge-401'],
      oauth: [...redirects, 'token-redirect-307', 'token-redirect-308', 'challenge-401'],
      mtls: [...redirects, 'untrusted-server-certificate', 'challenge-401'],
      workload: [...redirects, 'challenge-401'],
    });
  });

  test('the clients of the pairings × the credentialed modes; unsupported and inapplicable targets carry their reason', () => {
    const adapters = all([adapter('server-only'), adapter('careful', ['none', 'bearer', 'oauth'])]);
    const targets = planClientProbes(config({ pairings: [{ server: 'server-only', client: 'careful' }] }), adapters);
    expect(targets.map((target) => [target.client.name, target.mode, target.skip])).toEqual([
      ['careful', 'bearer', undefined],
      ['careful', 'oauth', undefined],
      ['careful', 'mtls', 'unsupported: adapter "careful" does not implement auth mode "mtls" (interop/adapter.json auth)'],
      ['careful', 'workload', 'unsupported: adapter "careful" does not implement auth mode "workload" (interop/adapter.json auth)'],
    ]);
    const stdioOnly = planClientProbes(config({ transports: ['stdio'], auth: ['bearer'] }), all([adapter('a')]));
    expect(stdioOnly.map((target) => target.skip)).toEqual(['inapplicable: the client probes need the http transport, which is not configured']);
    expect(() => planClientProbes(config({ pairings: [{ server: 'a', client: 'ghost' }] }), all([adapter('a')]))).toThrow('client probes: client adapter "ghost" is not loaded');
  });

  test('a probe run carries the positive row and the first plain negative row; discovery offers the positive row\'s capabilities', () => {
    const withHost: Scenario = { ...NEGATIVE, id: 'probe.host', request: toolBeforeRequest('probe.host', { effects: ['allow'] }), hostExpected: { decision: 'deny' } };
    const file = { version: 1 as const, scenarios: [withHost, POSITIVE, NEGATIVE] };
    expect(clientProbeScenarios(file, 'scenarios.json').map((scenario) => scenario.id)).toEqual([POSITIVE.id, NEGATIVE.id]);
    expect(clientProbeScenarios({ version: 1, scenarios: [POSITIVE] }, 'scenarios.json')).toEqual([POSITIVE]);
    expect(probeCapabilities(POSITIVE, 'scenarios.json')).toEqual({ effects: ['allow'] });
    const bare: Scenario = { ...POSITIVE, request: { ...POSITIVE.request, params: { ...POSITIVE.request.params, capabilities: undefined } } as unknown as Scenario['request'] };
    expect(() => probeCapabilities(bare, 'scenarios.json')).toThrow('scenarios.json: scenarios[id=probe.positive].request.params.capabilities: expected');
  });
});
