// The lifecycle verifier passes honest runs (LIFECYCLE-RULES §11 "Base" and "Accept"): a synthetic
// run of every canonical row, alone and all together, over each transport the row applies to, with
// zero failures; SDK-driven uploads, receiver refs unlike the aliases, request ids unlike event ids;
// and it never writes to its inputs.

import { describe, expect, test } from 'vitest';

import { splitByTransport } from '../../harness/families/lifecycle/applicability.ts';
import { deriveContentSources } from '../../harness/lifecycle-adapters/content-sources.ts';
import type { LifecycleScenario, StepScenario } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { verifyLifecycleRun } from '../../harness/families/lifecycle/verify/verify-lifecycle-run.ts';
import {
  CANONICAL_ROWS,
  CANONICAL_SKIP,
  canonicalRow,
  entryAt,
  entryIndex,
  expectClean,
  expectOnRow,
  honestCase,
  moveAfter,
  swap,
  validators,
  verify,
} from './support/lifecycle-verify-cases.ts';
import { sampleLifecycleFile } from './support/lifecycle-rows.ts';

const TRANSPORTS = ['http', 'stdio'] as const;

describe('our sample rows (no canonical file needed)', () => {
  const rows = sampleLifecycleFile().scenarios;
  test.each(TRANSPORTS)('an honest %s run of the whole sample passes with zero failures', (transport) => {
    const c = honestCase(rows, transport);
    expect(c.rows.length).toBeGreaterThan(3);
    expectClean(verify(c));
  });

  // The verifier's own negatives, so that it is caught failing even without the canonical files.
  test('a reply before its receipt', () => {
    const c = honestCase(rows, 'http');
    swap(c.entries, entryIndex(c.entries, 'received', { id: 'held-publish:a' }), entryIndex(c.entries, 'replied', { id: 'held-publish:a' }));
    expectOnRow(verify(c), 'held-publish', 'held-publish:a: reply before receipt');
  });

  test('a refused upload recorded as accepted', () => {
    const c = honestCase(rows, 'stdio');
    Object.assign(entryAt(c.entries, 'upload', { status: 401 }), { status: 201, ref: 'rcv-x' });
    expectOnRow(verify(c), 'uploads', 'upload integrity/authorization evidence mismatch');
  });

  test('a stray frame never discarded', () => {
    const c = honestCase(rows, 'stdio');
    c.entries.splice(entryIndex(c.entries, 'discarded'), 1);
    expectOnRow(verify(c), 'stdio-stray', 'discarded: control proof mismatch');
  });

  test('a cancel recorded after the reply it should precede', () => {
    const c = honestCase(rows, 'http');
    moveAfter(c.entries, entryIndex(c.entries, 'cancelled', { scenario: 'two-pending' }), entryIndex(c.entries, 'replied', { id: 'two-pending:a' }));
    expectOnRow(verify(c), 'two-pending', 'cancel/reply barrier order violated');
  });

  test('a chain observation missing', () => {
    const c = honestCase(rows, 'http');
    c.entries.splice(entryIndex(c.entries, 'observed', { eventId: 'chain-deny' }), 1);
    expectOnRow(verify(c), 'chain-deny', 'chain automatic downgrade/permission/effective view mismatch');
  });
});

describe.skipIf(CANONICAL_ROWS === undefined)(CANONICAL_ROWS ? 'the canonical lifecycle file' : `the canonical lifecycle file (${CANONICAL_SKIP})`, () => {
  const rows = CANONICAL_ROWS ?? [];

  test('has the 30 rows, 9 of them chains, that §8 splits 28/27', () => {
    expect(rows).toHaveLength(30);
    expect(rows.filter((r) => r.chain !== undefined)).toHaveLength(9);
    expect(splitByTransport(rows, 'http').applicable).toHaveLength(28);
    expect(splitByTransport(rows, 'stdio').applicable).toHaveLength(27);
  });

  test.each(TRANSPORTS)('an honest %s run of every applicable row passes with zero failures', (transport) => {
    const c = honestCase(rows, transport);
    const v = verify(c);
    expect([...v.rows.keys()]).toEqual(c.rows.map((r) => r.id));
    expectClean(v);
  });

  const single = TRANSPORTS.flatMap((transport) => splitByTransport(rows, transport).applicable.map((row) => [`${transport} › ${row.id}`, transport, row] as const));
  test.each(single)('an honest run of one row passes: %s', (_name, transport, row) => {
    expectClean(verify(honestCase([row], transport)));
  });

  test('the honest log really is evidence: received before replied, receiver refs unlike every alias', () => {
    const c = honestCase(rows, 'http');
    const aliases = new Set(deriveContentSources(c.rows).map((s) => s.descriptor.ref));
    const refs = c.entries.filter((e) => e.kind === 'upload' && e.status === 201).map((e) => e.ref as string);
    expect(refs.length).toBe(11);
    for (const ref of refs) expect(aliases.has(ref)).toBe(false);
    const kinds = new Set(c.entries.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(['accepted', 'acquired', 'cancelled', 'chain-settled', 'observed', 'received', 'replied', 'upload']);
    const stdio = new Set(honestCase(rows, 'stdio').entries.map((e) => e.kind));
    expect(stdio.has('emitted') && stdio.has('discarded')).toBe(true);
  });

  describe('§11 Accept', () => {
    const bodyRows = ['immutable-upload-and-subscription-views', 'changed-body-new-reference', 'normal-content-kinds', 'arbitrary-binary-and-empty-content', 'intercept-content-upload-before-send'];

    test.each(TRANSPORTS)('SDK confirmations on intercept and observe deliveries (%s)', (transport) => {
      const c = honestCase(rows, transport, { sdkUploadRows: bodyRows });
      const methods = (c.report.contentUploads as JsonObject[]).map((u) => u.method);
      expect(methods).toContain('hooks/intercept');
      expect(methods).toContain('hooks/observe');
      expect(methods).toHaveLength(8);
      expectClean(verify(c));
    });

    test('a confirmation may name its source by the receiver ref bound to the alias', () => {
      const c = honestCase(rows, 'http', { sdkUploadRows: bodyRows, sourceRefs: 'receiver-ref' });
      expect((c.report.contentUploads as JsonObject[]).every((u) => typeof u.sourceRef === 'string' && (u.sourceRef as string).startsWith('rcv-'))).toBe(true);
      expectClean(verify(c));
    });

    test('a request id that differs from its event id', () => {
      const renamed = rows.map((row) => {
        if (row.chain !== undefined) return row;
        const copy = cloneJson(row) as StepScenario;
        for (const request of Object.values(copy.requests)) request.params.event.id = `event-of:${String(request.id)}`;
        copy.expected.observations = copy.expected.observations.map((o) => ({ ...o, eventId: `event-of:${o.eventId}` }));
        return copy;
      });
      expectClean(verify(honestCase(renamed, 'http')));
      expectClean(verify(honestCase(renamed, 'stdio')));
    });

    test('deny+stop expectations are taken as written (no precedence is invented)', () => {
      const row = canonicalRow('observation-chain-deny-stop');
      expectClean(verify(honestCase([row], 'http')));
      const interrupted = cloneJson(canonicalRow('observation-chain-interrupt')) as LifecycleScenario & { responses: Record<string, JsonObject> };
      const denyStop = cloneJson(row.responses.a as JsonObject);
      denyStop.id = interrupted.requests.a!.id;
      interrupted.responses.a = denyStop;
      interrupted.responseSequences = { a: [denyStop] };
      expectClean(verify(honestCase([interrupted], 'http')));
    });
  });

  test('verify does not mutate its inputs (deep-frozen, and equal before and after)', () => {
    const c = honestCase(rows, 'stdio', { sdkUploadRows: ['normal-content-kinds'] });
    c.entries.splice(3, 1); // a broken run walks more code paths
    const before = JSON.stringify([c.rows, c.report, c.receipts]);
    const v = verify(c); // deep-freezes: a write would throw
    expect(v.runFailures.length + [...v.rows.values()].flat().length).toBeGreaterThan(0);
    expect(Object.isFrozen((c.report.results as JsonObject[])[0]!.actual)).toBe(true);
    expect(JSON.stringify([c.rows, c.report, c.receipts])).toBe(before);
  });

  test('the same evidence always gives the same verdict', () => {
    const c = honestCase(rows, 'http');
    c.entries.reverse();
    const input = { rows: c.rows, transport: c.transport, report: c.report, receipts: c.receipts, exitCode: 0, clientLanguage: 'typescript', validators };
    expect(verifyLifecycleRun(input)).toEqual(verifyLifecycleRun(input));
  });
});
