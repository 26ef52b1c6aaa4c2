// The verdict of one client-side credential probe, from the client's report and from what the
// harness's hostile listeners recorded — never from what the client says about itself. Pure.
//
// A probe fails (one `[label] client fault: ...` line per finding) when:
//   probe/not-exercised    the client never reached the trap, so the probe saw nothing
//   probe/followed-redirect a request reached the second origin a redirect pointed to
//   probe/credential-leak   a credential reached the origin a 401 challenge named, or a client
//                           certificate was presented to the second origin
//   probe/untrusted-server  a TLS handshake with the untrusted endpoint completed (and what followed)
//   report/status           a row is not reported `failed`
//   report/rejected         a row's actual is `{rejected:true}` (a transport failure is no rejection)
//   report/*, run/*         the report is missing or malformed, the exit code contradicts it, the run
//                           timed out or was killed
// Evidence is described by kind and length only: never a credential's value.

import { isJsonObject } from '../../protocol/json.ts';
import type { Scenario } from '../../scenarios/types.ts';
import { readReport } from '../../runs/verdicts.ts';
import type { ClientProbeCase } from './client-probe-cases.ts';
import type { ProbeClientOutcome } from './client-probe-run.ts';
import type { ListenerRecord, RecordedRequest } from './hostile-listener.ts';

export interface ClientProbeEvidence {
  /** The client adapter's configured name and its adapter.json language. */
  client: string;
  language: string;
  probe: ClientProbeCase;
  scenarios: Scenario[];
  run: Pick<ProbeClientOutcome, 'report' | 'exit' | 'timedOut' | 'failures'>;
  /** The hostile AHP endpoint the client was given. */
  endpoint: ListenerRecord;
  /** The hostile token endpoint (token-redirect only). */
  issuer?: ListenerRecord;
  /** Where redirects point and the challenge's resource_metadata names. */
  secondOrigin?: ListenerRecord;
}

/** The problems found; empty when the client passed the probe. */
export function judgeClientProbe(evidence: ClientProbeEvidence): string[] {
  const { probe } = evidence;
  const who = `client "${evidence.client}"`;
  const fault = (label: string, message: string): string => `[${label}] client fault: ${who} ${message}`;
  const problems: string[] = [];

  for (const failure of evidence.run.failures) problems.push(failure.replace(/^(\[[^\]]+\]) /, '$1 client fault: '));

  const integrity: string[] = [];
  const rows = evidence.run.report === undefined ? new Map() : readReport(evidence.run.report, evidence.scenarios, evidence.language, integrity);
  for (const line of integrity) problems.push(line.replace(/^(\[[^\]]+\]) \(client\) /, `$1 client fault: ${who}: `));

  const exercised = trapSprung(evidence);
  if (!exercised.ok) problems.push(fault('probe/not-exercised', `${exercised.missing}, so the probe saw nothing of how it handles ${trapText(probe)}`));

  const second = evidence.secondOrigin;
  if (second && probe.trap.kind === 'redirect') {
    for (const request of second.requests) problems.push(fault('probe/followed-redirect', `followed ${trapText(probe)}: the second origin received ${requestText(request)}`));
  }
  if (second && probe.trap.kind === 'challenge') {
    for (const request of second.requests.filter((entry) => entry.credentials.length > 0)) {
      problems.push(fault('probe/credential-leak', `sent credentials to the origin the 401 challenge named (resource_metadata): ${requestText(request)}`));
    }
  }
  if (second && second.requests.length === 0) {
    for (const handshake of second.handshakes.filter((entry) => entry.clientCertificate !== undefined)) {
      problems.push(fault('probe/credential-leak', `presented its client certificate (CN=${handshake.clientCertificate}) to the second origin`));
    }
  }
  if (probe.trap.kind === 'untrusted-certificate') {
    for (const handshake of evidence.endpoint.handshakes) {
      const presented = handshake.clientCertificate === undefined ? '' : `, presenting its client certificate (CN=${handshake.clientCertificate})`;
      problems.push(fault('probe/untrusted-server', `completed a TLS handshake with an endpoint whose certificate the run's CA did not issue${presented}`));
    }
    for (const request of evidence.endpoint.requests) problems.push(fault('probe/untrusted-server', `sent ${requestText(request)} to the untrusted endpoint`));
  }

  for (const scenario of evidence.scenarios) {
    const row = rows.get(scenario.id);
    if (!row) continue; // readReport named it
    if (row.status !== 'failed') {
      problems.push(fault('report/status', `reported row "${scenario.id}" as "${row.status}": facing ${trapText(probe)}, every row must be reported failed`));
    }
    if (isJsonObject(row.actual) && row.actual.rejected === true) {
      problems.push(
        fault('report/rejected', `reported row "${scenario.id}" with actual {"rejected":true}: facing ${trapText(probe)}, the row must fail as a transport failure, not as a rejected response (a negative row would count {"rejected":true} as a pass)`),
      );
    }
  }

  const exit = evidence.run.exit;
  const anyFailed = [...rows.values()].some((row) => row.status === 'failed');
  if (!evidence.run.timedOut && exit && exit.code === 0 && anyFailed) problems.push(fault('run/exit', 'exited 0 although its report has a failed row'));
  return problems;
}

/** What the hostile side did, in words for a failure message. */
export function trapText(probe: ClientProbeCase): string {
  const trap = probe.trap;
  switch (trap.kind) {
    case 'redirect': {
      const what = trap.at === 'discovery' ? 'discovery (and of every intercept)' : trap.at === 'intercept' ? 'every intercept' : 'its token request';
      return `a ${trap.status} redirect of ${what} to a second origin`;
    }
    case 'challenge':
      return 'a 401 with a WWW-Authenticate challenge on every intercept';
    case 'untrusted-certificate':
      return 'an endpoint certificate from a CA the client was not told to trust';
  }
}

function trapSprung(evidence: ClientProbeEvidence): { ok: true } | { ok: false; missing: string } {
  const trap = evidence.probe.trap;
  const trapped = (record: ListenerRecord | undefined): boolean => record?.requests.some((request) => request.trapped) ?? false;
  switch (trap.kind) {
    case 'redirect':
      if (trap.at === 'token') return trapped(evidence.issuer) ? { ok: true } : { ok: false, missing: 'sent no token request to its configured token endpoint' };
      if (trapped(evidence.endpoint)) return { ok: true };
      return { ok: false, missing: trap.at === 'discovery' ? 'sent no request to its configured endpoint' : 'sent no intercept to its configured endpoint' };
    case 'challenge':
      return trapped(evidence.endpoint) ? { ok: true } : { ok: false, missing: 'sent no intercept to its configured endpoint' };
    case 'untrusted-certificate':
      return evidence.endpoint.connections > 0 ? { ok: true } : { ok: false, missing: 'never connected to its configured endpoint' };
  }
}

function requestText(request: RecordedRequest): string {
  return `${request.method} ${request.path} carrying ${request.credentials.length > 0 ? request.credentials.join(', ') : 'no credential'}`;
}
