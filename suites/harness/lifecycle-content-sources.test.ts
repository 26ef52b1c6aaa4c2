// contentSources (LIFECYCLE-RULES §2): confirmed uploads only, strict decoding, integrity and alias
// checks with the runner's own labels, dedupe in first-seen order — on our sample and on the
// protocol's lifecycle file, which must give exactly the 11 sources the rules list.

import { createHash } from 'node:crypto';

import { describe, expect, test } from 'vitest';

import { ContentSourceError, decodeStrictBase64, deriveContentSources, uploadStepBytes } from '../../harness/lifecycle-adapters/content-sources.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenario, StepScenario, UploadStep } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { cloneJson } from '../../harness/protocol/json.ts';
import { BINARY, TEXT, chainRow, heldPublishRow, sampleLifecycleFile, textUploadStep, uploadStep, uploadsRow } from './support/lifecycle-rows.ts';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function failure(rows: readonly LifecycleScenario[]): ContentSourceError {
  try {
    deriveContentSources(rows);
  } catch (error) {
    expect(error).toBeInstanceOf(ContentSourceError);
    return error as ContentSourceError;
  }
  throw new Error('expected a ContentSourceError, but the sources were derived');
}

/** The uploads row with its upload steps replaced (statuses follow `statuses`). */
function withUploads(steps: UploadStep[], statuses: number[]): StepScenario {
  const row = uploadsRow();
  return { ...row, steps: [...steps, ...row.steps.filter((s) => s.op !== 'upload')], expected: { ...row.expected, uploadStatuses: statuses } };
}

describe('strict decoding', () => {
  test('canonical padded base64 decodes, including the empty body', () => {
    expect(decodeStrictBase64('')).toEqual(Buffer.alloc(0));
    expect(decodeStrictBase64('AAEC/v8=')).toEqual(BINARY);
    expect(decodeStrictBase64('+/+/')).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  test.each([
    ['missing padding', 'AAEC/v8'],
    ['stray bits in the last character', 'AAEC/v9='],
    ['URL-safe alphabet', 'AAEC_v8='],
    ['whitespace', 'AAEC /v8='],
    ['a line break', 'AAEC\n/v8='],
    ['too much padding', 'AAEC/v8=='],
    ['padding in the middle', 'AA==AAEC'],
  ])('%s is refused', (_title, text) => {
    expect(decodeStrictBase64(text)).toBeUndefined();
  });

  test('a text body is its UTF-8 bytes; a lone surrogate cannot be encoded', () => {
    expect(uploadStepBytes(textUploadStep('t', 'é✓'))).toEqual(Buffer.from([0xc3, 0xa9, 0xe2, 0x9c, 0x93]));
    expect(uploadStepBytes(textUploadStep('t', 'a\uD800b'))).toBeUndefined();
    expect(uploadStepBytes(textUploadStep('t', '\uD83D\uDE00'))).toEqual(Buffer.from('😀', 'utf8'));
  });
});

describe('deriving sources', () => {
  test('only uploads expected to get 201 count; base64 and text bodies alike; the alias is the descriptor ref', () => {
    expect(deriveContentSources(sampleLifecycleFile().scenarios)).toEqual([
      { descriptor: { ref: 'binary-alias', size: 5, sha256: sha256(BINARY) }, bytes: BINARY.toString('base64') },
      { descriptor: { ref: 'text-alias', size: TEXT.length, sha256: sha256(Buffer.from(TEXT)) }, bytes: Buffer.from(TEXT).toString('base64') },
    ]);
  });

  test('rows without uploads and chain rows give nothing', () => {
    expect(deriveContentSources([heldPublishRow(), chainRow()])).toEqual([]);
  });

  test('a repeated alias with the same bytes is listed once, at its first position', () => {
    const other = Buffer.from('other');
    const row = withUploads([uploadStep('x', BINARY), uploadStep('y', other), uploadStep('x', BINARY)], [201, 201, 201]);
    const second = cloneJson(withUploads([uploadStep('x', BINARY)], [201]));
    second.id = 'again';
    expect(deriveContentSources([row, second]).map((s) => s.descriptor.ref)).toEqual(['x', 'y']);
  });

  test('the same bytes under two aliases are two sources', () => {
    const row = withUploads([uploadStep('v1', BINARY), uploadStep('retry', BINARY)], [201, 201]);
    expect(deriveContentSources([row]).map((s) => [s.descriptor.ref, s.descriptor.sha256])).toEqual([
      ['v1', sha256(BINARY)],
      ['retry', sha256(BINARY)],
    ]);
  });

  test('uploads pair with statuses in order; a rejected upload never becomes a source, even when it is broken', () => {
    const broken = { ...uploadStep('bad-size', Buffer.from('body')), size: 99 };
    const row = withUploads([broken, uploadStep('ok', BINARY)], [400, 201]);
    expect(deriveContentSources([row]).map((s) => s.descriptor.ref)).toEqual(['ok']);
  });

  test('uploads beyond the listed statuses are not paired (as zip does)', () => {
    const row = withUploads([uploadStep('first', BINARY), uploadStep('second', BINARY)], [201]);
    expect(deriveContentSources([row]).map((s) => s.descriptor.ref)).toEqual(['first']);
  });

  test('the inputs are not mutated', () => {
    const rows = sampleLifecycleFile().scenarios;
    const before = JSON.stringify(rows);
    deriveContentSources(rows);
    expect(JSON.stringify(rows)).toBe(before);
  });
});

describe('broken confirmed sources', () => {
  test('a declared size that does not match the bytes: integrity mismatch', () => {
    const row = withUploads([{ ...uploadStep('x', BINARY), size: 6 }], [201]);
    const error = failure([heldPublishRow(), row]);
    expect(error.label).toBe('fixture source integrity mismatch');
    expect(error.path).toBe('scenarios[1].steps[0]');
    expect(error.message).toBe(
      `fixture source integrity mismatch: scenarios[1].steps[0]: alias "x" declares size 6 and sha256 ${sha256(BINARY)}, but its bytes have size 5 and sha256 ${sha256(BINARY)}`,
    );
  });

  test('a declared digest that does not match the bytes: integrity mismatch', () => {
    const row = withUploads([{ ...uploadStep('x', BINARY), sha256: '0'.repeat(64) }], [201]);
    expect(failure([row]).label).toBe('fixture source integrity mismatch');
  });

  test('an alias seen again with other bytes: alias mutated, naming both places', () => {
    const row = withUploads([uploadStep('x', BINARY), uploadStep('x', Buffer.from('changed'))], [201, 201]);
    const error = failure([row]);
    expect(error.label).toBe('fixture source alias mutated');
    expect(error.message).toBe(
      'fixture source alias mutated: scenarios[0].steps[1]: alias "x" names other bytes than at scenarios[0].steps[0] (a confirmed alias must always name the same bytes)',
    );
  });

  test('an alias mutated across rows is caught too', () => {
    const first = withUploads([uploadStep('shared', BINARY)], [201]);
    const second = { ...withUploads([uploadStep('shared', Buffer.from('changed'))], [201]), id: 'second' };
    expect(failure([first, second]).path).toBe('scenarios[1].steps[0]');
  });

  test('a confirmed body that is not strict base64', () => {
    const row = withUploads([uploadStep('x', BINARY, { bodyBase64: 'AAEC/v9=' })], [201]);
    const error = failure([row]);
    expect(error.label).toBe('fixture source encoding invalid');
    expect(error.detail).toBe('expected strict, canonical base64 in bodyBase64');
  });
});

const canonical = canonicalInteropFile('lifecycle-scenarios.json');

describe.skipIf(canonical === undefined)(
  canonical ? 'the canonical lifecycle file' : `the canonical lifecycle file (SKIPPED: not found in ${canonicalInteropCandidate()})`,
  () => {
    const rows = canonical ? loadLifecycleScenarioFileSync(canonical).scenarios : [];
    const edit = (id: string, change: (row: StepScenario) => void): LifecycleScenario[] =>
      rows.map((row) => {
        if (row.id !== id) return row;
        const copy = cloneJson(row) as StepScenario;
        change(copy);
        return copy;
      });
    const uploadAt = (row: StepScenario, n: number): UploadStep => row.steps.filter((s): s is UploadStep => s.op === 'upload')[n]!;

    test('gives exactly the 11 sources of LIFECYCLE-RULES §2, in that order, each true to its bytes', () => {
      const sources = deriveContentSources(rows);
      expect(sources.map((s) => s.descriptor.ref)).toEqual([
        'immutable-v1',
        'immutable-retry',
        'immutable-changed',
        'immutable-v2',
        'changed-new-ref',
        'normal-reasoning',
        'normal-skill',
        'normal-native',
        'binary-ref',
        'empty-ref',
        'intercept-body',
      ]);
      for (const source of sources) {
        const bytes = Buffer.from(source.bytes, 'base64');
        expect(source.descriptor.size, source.descriptor.ref).toBe(bytes.length);
        expect(source.descriptor.sha256, source.descriptor.ref).toBe(sha256(bytes));
      }
      expect(sources.find((s) => s.descriptor.ref === 'binary-ref')?.descriptor.size).toBe(259);
      expect(sources.find((s) => s.descriptor.ref === 'empty-ref')?.descriptor).toEqual({ ref: 'empty-ref', size: 0, sha256: sha256(Buffer.alloc(0)) });
    });

    test('the negative uploads (400 size, 400 hash, 401 credential) are absent', () => {
      const refs = deriveContentSources(rows).map((s) => s.descriptor.ref);
      for (const negative of ['bad-size', 'bad-hash', 'unauthorized']) expect(refs).not.toContain(negative);
    });

    test('a changed byte in a confirmed upload is an integrity mismatch', () => {
      const broken = edit('normal-content-kinds', (row) => {
        const step = uploadAt(row, 1);
        step.bodyBase64 = Buffer.from('skill c0ntent').toString('base64');
      });
      const error = failure(broken);
      expect(error.label).toBe('fixture source integrity mismatch');
      expect(error.detail).toMatch(/^alias "normal-skill" declares size 13 and sha256 a55d9c00/);
    });

    test('a confirmed alias reused for other bytes is an alias mutation', () => {
      const broken = edit('changed-body-new-reference', (row) => {
        uploadAt(row, 0).ref = 'immutable-v1';
      });
      const error = failure(broken);
      expect(error.label).toBe('fixture source alias mutated');
      expect(error.detail).toMatch(/^alias "immutable-v1" names other bytes than at scenarios\[13\]\.steps\[0\]/);
    });
  },
);
