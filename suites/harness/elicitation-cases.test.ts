// Our elicitation case files (fixtures/elicitation.json, fixtures/elicitation-inline.json) against the
// rules, independently of the model that generated them: every wire case's wire and receipt count as
// ELICITATION-RULES §7.1 tabulates it, the rules' totals, the inline mapping of §14, the atomic rows
// of §7.2, the closed format and its error messages, and — where the rules say so — the canonical
// draft schemas' verdict on the bodies and envelopes.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';

import type { ElicitationCaseFile, WireCase } from '../../harness/families/elicitation/case-types.ts';
import { buildElicitationCaseFile, serializeElicitationCaseFile } from '../../harness/families/elicitation/generate.ts';
import { ElicitationCaseFileError, parseElicitationCaseFile } from '../../harness/families/elicitation/load-elicitation-cases.ts';
import { ELICITATION_CASE_FILES } from '../../harness/families/elicitation/hooks.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import type { JsonObject } from '../../harness/protocol/json.ts';
import { loadValidators } from '../../harness/protocol/load-validators.ts';

const UPLOAD = buildElicitationCaseFile('upload');
const INLINE = buildElicitationCaseFile('inline');
const theirs = (file: ElicitationCaseFile) => file.cases.filter((c) => !c.tags.includes('ours'));

/** The wire column of rules §7.1, per case id (U = upload, I = intercept). */
const FULL = 'U201 U201 I200 I200';
const REQUEST_REFUSED = 'U201 U201 I400';
const RESULT_REFUSED = 'U201 U201 I200 I400';
const RULES_WIRE: Record<string, string> = {
  ...Object.fromEntries(['form-accept-selected-complete-bytes', 'form-default-mode', 'form-decline', 'form-cancel', 'url-decline', 'url-cancel', 'url-accept-not-completion'].map((id) => [id, FULL])),
  ...Object.fromEntries(['form-missing-message', 'form-missing-requestedSchema', 'url-missing-message', 'url-missing-url', 'url-missing-elicitationId', 'renamed-requestedSchema', 'invalid-mode', 'nonprimitive-form-schema'].map((id) => [id, REQUEST_REFUSED])),
  ...Object.fromEntries(
    ['bad-content-array', 'bad-content-nested', 'bad-content-null', 'bad-content-numeric-array', 'bad-action', 'decline-with-content', 'cancel-with-content', 'url-content-forbidden'].map((id) => [id, RESULT_REFUSED]),
  ),
  'mode-metadata-mismatch': REQUEST_REFUSED,
  'action-metadata-mismatch': RESULT_REFUSED,
  'server-metadata-mismatch': RESULT_REFUSED,
  'request-not-preuploaded': 'U201 I400',
  'request-digest-mismatch': REQUEST_REFUSED,
  ...Object.fromEntries(['form-metadata-no-upload', 'form-omit-no-upload', 'url-metadata-no-upload', 'url-omit-no-upload'].map((id) => [id, 'I200 I200'])),
  'selected-request-gap-fails-closed': 'U201 I400',
  'selected-result-gap-fails-closed': 'U201 I200 I400',
  ...Object.fromEntries(
    ['submitted-form-missing-required', 'submitted-form-absent-required-content', 'submitted-form-wrong-field-type', 'submitted-form-invalid-enum-selection', 'submitted-number-out-of-bounds'].map((id) => [id, RESULT_REFUSED]),
  ),
  'submitted-form-default-not-applied': FULL,
  'upstream-default-annotations-preserved': FULL,
  ...Object.fromEntries(
    (['body', 'metadata', 'omit'] as const).flatMap((selection) =>
      ['missing-parent', 'wrong-parent', 'wrong-source', 'wrong-session', 'missing-session'].map((m) => [`correlation-${selection}-${m}`, selection === 'body' ? RESULT_REFUSED : 'I200 I400']),
    ),
  ),
};

function wireOf(c: WireCase): string {
  return c.steps.map((s) => `${s.kind === 'upload' ? 'U' : 'I'}${s.expectStatus}`).join(' ');
}

function count(file: ElicitationCaseFile, kind: 'upload' | 'intercept', status: number): number {
  const steps = [...theirs(file), file.concurrent].flatMap((c) => c.steps).concat(file.probes.flatMap((p) => (p.kind === 'upload' ? p.steps : [])));
  return steps.filter((s) => s.kind === kind && s.expectStatus === status).length;
}

describe('the upload binding file against rules §7', () => {
  test('the rules 56 wire cases, in the rules order, each with the wire and receipt count of §7.1', () => {
    expect(theirs(UPLOAD)).toHaveLength(56);
    expect(theirs(UPLOAD).map((c) => c.id)).toEqual(Object.keys(RULES_WIRE));
    for (const c of theirs(UPLOAD)) {
      expect(wireOf(c), c.id).toBe(RULES_WIRE[c.id]);
      expect(c.receipts.length, c.id).toBe(c.steps.filter((s) => s.kind === 'intercept' && s.expectStatus === 200).length);
    }
  });

  test("the rules' totals: with the 6 published rows (2 uploads and 2 accepted intercepts each), 99 U201, 1 U401, 73 I200, 45 I400", () => {
    expect(count(UPLOAD, 'upload', 201) + 12).toBe(99);
    expect(count(UPLOAD, 'upload', 401)).toBe(1);
    expect(count(UPLOAD, 'intercept', 200) + 12).toBe(73);
    expect(count(UPLOAD, 'intercept', 400)).toBe(45);
  });

  test('the concurrent scenario settles in reverse order: receipts a-request, b-request, b-result, a-result, each result keeping its own schema', () => {
    expect(wireOf(UPLOAD.concurrent)).toBe('U201 U201 U201 U201 I200 I200 I400 I400 I200 I200');
    expect(UPLOAD.concurrent.receipts.map((r) => r.eventId)).toEqual(['concurrent-a:request', 'concurrent-b:request', 'concurrent-b:result', 'concurrent-a:result']);
    const schemaOf = (i: number) => ((UPLOAD.concurrent.receipts[i]?.summary.request as JsonObject).requestedSchema as JsonObject).properties;
    expect(Object.keys(schemaOf(2) as JsonObject)).toEqual(['count']);
    expect(Object.keys(schemaOf(3) as JsonObject)).toEqual(['answer', 'tags']);
  });

  test('the atomic rows of §7.2: 16, publishing exactly the six the rules publish, with the staged results they name', () => {
    expect(UPLOAD.atomic).toHaveLength(16);
    const published = Object.fromEntries(UPLOAD.atomic.flatMap((row) => (row.expected.accepted ? [[row.name, row.expected.result]] : [])));
    expect(published).toEqual({
      'before-return': { action: 'accept', content: { answer: 'returned by hook', tags: ['b'] }, _meta: { preserved: true } },
      'before-deny': { action: 'decline' },
      'result-replace': { action: 'accept', content: { answer: 'modified', tags: ['b'] }, _meta: { keep: { nested: ['x', 1] } } },
      'result-merge': { action: 'accept', content: { answer: 'merged', tags: ['a', 'b'], fraction: 1.25 }, _meta: { keep: { nested: ['x', 1] } } },
      'url-return': { action: 'accept' },
      'url-deny': { action: 'decline' },
    });
    const resultPhase = UPLOAD.atomic.filter((row) => row.boundary === 'result');
    // The request boundary grants no effect, only its mode (rules §14: the result-phase rows still grant `form` on their request).
    for (const row of resultPhase) expect((row.input.request.params as JsonObject).capabilities, row.id).toEqual({ effects: [], elicitation: { form: {} } });
  });
});

describe('the inline binding file (rules §14)', () => {
  test('no body is uploaded; the upload-only cases give way to their inline analogues, every other case keeps its outcome', () => {
    expect(INLINE.cases.flatMap((c) => c.steps).filter((s) => s.kind === 'upload')).toEqual([]);
    expect(INLINE.atomic.every((row) => row.input.uploads.length === 0)).toBe(true);
    const replaced: Record<string, string> = { 'request-not-preuploaded': 'request-text-not-json', 'request-digest-mismatch': 'request-legacy-body-ref' };
    UPLOAD.cases.forEach((c, i) => {
      const inline = INLINE.cases[i] as WireCase;
      expect(inline.id).toBe(replaced[c.id] ?? c.id);
      expect(wireOf(inline), inline.id).toBe(wireOf(c).replace(/U201 ?/g, '').trim());
      if (replaced[c.id] === undefined) expect(inline.receipts.map((r) => r.summary), c.id).toEqual(c.receipts.map((r) => r.summary));
    });
  });

  test("an inline receipt's bytes are the base64 of the text part's text", () => {
    const wire = INLINE.cases[0] as WireCase;
    const step = wire.steps[0];
    if (step?.kind !== 'intercept') throw new Error('expected an intercept first');
    const text = ((((step.message.params as JsonObject).event as JsonObject).elicitation as JsonObject).request as JsonObject).text as string;
    expect(wire.receipts[0]?.bytes).toBe(Buffer.from(text, 'utf8').toString('base64'));
  });
});

describe('the committed files and the closed format', () => {
  test.each([
    ['upload', UPLOAD],
    ['inline', INLINE],
  ] as const)('fixtures for the %s binding are exactly what the generator writes, and load', (binding, built) => {
    const text = readFileSync(ELICITATION_CASE_FILES[binding], 'utf8');
    expect(text === serializeElicitationCaseFile(built), 'run npm run fixtures').toBe(true);
    expect(parseElicitationCaseFile(text, 'fixtures/x.json').binding).toBe(binding);
  });

  const mangled = (change: (file: JsonObject) => void): string => {
    const file = JSON.parse(serializeElicitationCaseFile(UPLOAD)) as JsonObject;
    change(file);
    return JSON.stringify(file);
  };
  const cases = (file: JsonObject) => file.cases as JsonObject[];

  test.each([
    ['an unknown key', (f: JsonObject) => {
      f.extra = 1;
    }, 'extra', /unknown key; expected only .* \(the elicitation scenario format is closed\)/],
    ['an unknown step kind', (f: JsonObject) => {
      ((cases(f)[0]?.steps as JsonObject[])[0] as JsonObject).kind = 'download';
    }, 'cases[0].steps[0].kind', /expected one of "upload", "intercept", got "download"/],
    ['a bad expected status', (f: JsonObject) => {
      ((cases(f)[0]?.steps as JsonObject[])[0] as JsonObject).expectStatus = 202;
    }, 'cases[0].steps[0].expectStatus', /expected the expected upload status 201 or 401, got number 202/],
    ['a receipt for no accepted intercept', (f: JsonObject) => {
      (cases(f)[0] as JsonObject).receipts = [];
    }, 'cases[0].receipts', /expected one receipt per intercept expected 200/],
    ['an eventId that is not its message', (f: JsonObject) => {
      ((cases(f)[0]?.steps as JsonObject[])[2] as JsonObject).eventId = 'other';
    }, 'cases[0].steps[2].eventId', /expected the message's params.event.id/],
    ['a duplicate id', (f: JsonObject) => {
      (cases(f)[1] as JsonObject).id = (cases(f)[0] as JsonObject).id as string;
    }, 'cases[1].id', /expected a unique id/],
  ])('a file with %s is refused, naming the file, the JSON path and the expectation', (_what, change, at, message) => {
    let error: unknown;
    try {
      parseElicitationCaseFile(mangled(change), 'fixtures/mangled.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ElicitationCaseFileError);
    const problem = (error as ElicitationCaseFileError).problems.find((p) => (p.path || '(file)') === at || p.path.startsWith(at));
    expect(problem?.problem, JSON.stringify((error as ElicitationCaseFileError).problems)).toMatch(message);
    expect((error as Error).message.startsWith('fixtures/mangled.json: ')).toBe(true);
  });

  test('text that is not JSON is refused with its line and column', () => {
    expect(() => parseElicitationCaseFile('{"version": 1,\n  oops', 'fixtures/broken.json')).toThrow(/fixtures\/broken\.json: invalid JSON at line 2, column 3/);
  });
});

const canonicalDir = canonicalSchemaDir();

describe.skipIf(canonicalDir === undefined)(`the canonical draft schemas' verdict where the rules give one (${canonicalSchemaCandidate()})`, () => {
  // The MCP body schema is self-contained; the envelope schema goes through the project's cached loader.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const mcp = JSON.parse(readFileSync(path.join(canonicalDir ?? '.', 'mcp-elicitation.schema.json'), 'utf8')) as { $id: string };
  ajv.addSchema(mcp);
  const envelopes = canonicalDir === undefined ? undefined : loadValidators(canonicalDir);
  const validate = (ref: string, value: unknown): boolean => {
    if (ref === 'intercept-request.schema.json') return envelopes?.interceptRequest(value).valid ?? false;
    return ajv.validate(`${mcp.$id}${ref.slice(ref.indexOf('#'))}`, value);
  };
  const bodyOf = (c: WireCase, stage: 'request' | 'result'): unknown => {
    const step = c.steps.find((s) => s.kind === 'upload' && s.alias === `${c.id}:${stage}`);
    return step === undefined ? undefined : JSON.parse(Buffer.from((step as { bytes: string }).bytes, 'base64').toString('utf8'));
  };

  test('every accepted body validates against mcp-elicitation request/result; every body refused by an MCP schema fails it', () => {
    for (const c of UPLOAD.cases.filter((x) => x.selection === 'body')) {
      const request = bodyOf(c, 'request');
      const result = bodyOf(c, 'result');
      const requestValid = request === undefined ? undefined : validate('mcp-elicitation.schema.json#/$defs/request', request);
      const resultValid = result === undefined ? undefined : validate('mcp-elicitation.schema.json#/$defs/result', result);
      if (c.rejectedBy === 'mcp-request-schema' || c.rejectedBy === 'requested-schema-subset') expect(requestValid, c.id).toBe(false);
      else if (request !== undefined) expect(requestValid, c.id).toBe(true);
      if (c.rejectedBy === 'mcp-result-schema') expect(resultValid, c.id).toBe(false);
      else if (c.rejectedBy === null) expect(resultValid, c.id).toBe(true);
    }
  });

  test('upload binding: only the omit envelopes validate against intercept-request (the schemas describe the inline binding)', () => {
    for (const c of UPLOAD.cases.filter((x) => x.rejectedBy === null)) {
      for (const step of c.steps) {
        if (step.kind !== 'intercept') continue;
        expect(validate('intercept-request.schema.json', step.message), `${c.id} ${step.stage}`).toBe(c.selection === 'omit');
      }
    }
  });

  test.each([
    ['upload', UPLOAD],
    ['inline', INLINE],
  ] as const)('%s binding: every intercept a correct SDK must accept grants the mode its event is in (spec: "absent modes are unsupported"), the atomic inputs included', (_binding, file) => {
    const grantsItsMode = (envelope: JsonObject): boolean => {
      const params = envelope.params as JsonObject;
      const mode = ((params.event as JsonObject).elicitation as JsonObject).mode as string;
      const granted = (params.capabilities as JsonObject).elicitation as JsonObject | undefined;
      return typeof granted?.[mode] === 'object' && granted[mode] !== null;
    };
    const accepted = [...file.cases, file.concurrent].flatMap((c) => c.steps.flatMap((s) => (s.kind === 'intercept' && s.expectStatus === 200 ? [[c.id, s.message as JsonObject] as const] : [])));
    const helperInputs = file.atomic.filter((row) => row.expected.accepted).flatMap((row) => [row.input.request, ...(row.input.result ? [row.input.result] : [])].map((m) => [row.id, m] as const));
    expect(accepted.length).toBeGreaterThan(20);
    expect(helperInputs.length).toBeGreaterThan(5);
    for (const [id, envelope] of [...accepted, ...helperInputs]) expect(grantsItsMode(envelope), id).toBe(true);
  });

  test('inline binding: every envelope of an accepted case validates against intercept-request', () => {
    for (const c of INLINE.cases.filter((x) => x.rejectedBy === null)) {
      for (const step of c.steps) {
        if (step.kind !== 'intercept') continue;
        expect(validate('intercept-request.schema.json', step.message), `${c.id} ${step.stage}: ${(envelopes?.interceptRequest(step.message).errors ?? []).join('; ')}`).toBe(true);
      }
    }
  });
});
