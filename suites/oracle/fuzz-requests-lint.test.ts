// The fuzz arbitraries are fixture generators too: every request they can produce, in both fuzz
// profiles (wide, and inside a host envelope a manifest declares), passes the semantic lint — the
// spec's MUSTs on what a client sends — and so does a batch of materialized cases as one scenario
// file (event ids unique within a source). A fuzz disagreement must never start from a request a
// correct SDK is right to refuse.

import path from 'node:path';

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';

import { buildManifest as referenceManifest } from '../../adapters/reference/lib/manifest.ts';
import { projectRoot } from '../../harness/config/load-config.ts';
import { finishRequest, fuzzParameters, toolBeforeRequest, validScenario } from '../../harness/generate/arbitraries.ts';
import { fuzzCase, materializeCase } from '../../harness/fuzz/case-arbitrary.ts';
import { envelopeRequest } from '../../harness/fuzz/envelope-arbitraries.ts';
import { envelopeFromManifest, WIDE_PROFILE, type FuzzProfile } from '../../harness/fuzz/host-envelope.ts';
import { fuzzScenario } from '../../harness/fuzz/scenario-rows.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';
import type { InterceptRequest } from '../../harness/protocol/messages.ts';
import { lintSentMessage } from '../../harness/protocol/semantic-lint/message-rules.ts';
import { formatSemanticProblem, lintScenarioFileSemantics } from '../../harness/protocol/semantic-lint/scenario-file-lint.ts';

const params = { ...fuzzParameters(), includeErrorInReport: true };
const validators = loadValidators(path.join(projectRoot(), 'schemas'));
const ENVELOPE = envelopeFromManifest(referenceManifest('none'), 'reference manifest');
const HOST: FuzzProfile = { name: 'host', envelope: ENVELOPE };

function lintProblems(request: InterceptRequest): string[] {
  return lintSentMessage(request, 'intercept').map((p) => `${p.path}: [${p.rule}] ${p.message}`);
}

describe('every request the fuzz arbitraries produce passes the semantic lint', () => {
  const sources: Array<[string, fc.Arbitrary<InterceptRequest>]> = [
    ['toolBeforeRequest', toolBeforeRequest()],
    ['finishRequest', finishRequest()],
    ['validScenario', validScenario().map((s) => s.request)],
    ['envelopeRequest (reference manifest)', envelopeRequest(ENVELOPE)],
    ['fuzzCase wide, materialized', fuzzCase(WIDE_PROFILE).map((c) => materializeCase(c, 'fuzz-case').request)],
    ['fuzzCase host, materialized', fuzzCase(HOST).map((c) => materializeCase(c, 'fuzz-case').request)],
  ];
  test.each(sources)('%s', (_name, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (request) => {
        expect(lintProblems(request)).toEqual([]);
      }),
      params,
    );
  });

  test('a batch of cases as one scenario file: distinct events, one snapshot', () => {
    fc.assert(
      fc.property(fc.array(fuzzCase(WIDE_PROFILE), { minLength: 2, maxLength: 6 }), (cases) => {
        const file = { version: 1, scenarios: cases.map((c, i) => fuzzScenario(c, `fuzz-batch-${i}`, validators)) };
        expect(lintScenarioFileSemantics(file, 'fuzz batch').map(formatSemanticProblem)).toEqual([]);
      }),
      { ...params, numRuns: Math.min(params.numRuns, 50) },
    );
  });

  test('the property sees a broken request when there is one', () => {
    const broken = fc.sample(toolBeforeRequest(), { numRuns: 1, seed: params.seed })[0]!;
    broken.id = `${String(broken.id)}:rpc`;
    expect(lintProblems(broken)).toEqual([expect.stringContaining('[events.md#jsonrpc-id-equals-event-id]')]);
  });
});
