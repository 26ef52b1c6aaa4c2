// Every wire message in the protocol's lifecycle and observation-chain fixture files — requests,
// scripted responses and response sequences, emitted stray frames, chain proofs, and the observe
// notification each observe step must send (LIFECYCLE-RULES §7.6) — gets the same verdict from our
// schemas and the canonical ones. All of them are valid; the one deliberate negative of §11 (an
// `ask` carrying a `reason`) is invalid under both.

import path from 'node:path';

import { describe, expect, test } from 'vitest';

import { observeNotificationFor } from '../../harness/families/lifecycle/observe-message.ts';
import { loadLifecycleScenarioFileSync } from '../../harness/families/lifecycle/load-lifecycle-scenarios.ts';
import type { LifecycleScenarioFile } from '../../harness/lifecycle-adapters/scenario-types.ts';
import { canonicalInteropCandidate, canonicalInteropFile } from '../../harness/protocol/canonical-interop.ts';
import { canonicalSchemaCandidate, canonicalSchemaDir } from '../../harness/protocol/canonical-schemas.ts';
import { cloneJson, type JsonObject } from '../../harness/protocol/json.ts';
import { PROJECT_ROOT, loadValidators } from '../../harness/protocol/load-validators.ts';
import type { EntryPoint } from '../../harness/protocol/validator-types.ts';

const OUR_SCHEMAS = path.join(PROJECT_ROOT, 'schemas');
const canonicalSchemas = canonicalSchemaDir();
const FILES = ['lifecycle-scenarios.json', 'observation-chain-scenarios.json'] as const;

interface WireMessage {
  name: string;
  entry: EntryPoint;
  message: unknown;
}

/** Every message of the file, named `<row> › <where>`. */
function wireMessages(file: LifecycleScenarioFile): WireMessage[] {
  const out: WireMessage[] = [];
  for (const row of file.scenarios) {
    const add = (where: string, entry: EntryPoint, message: unknown): void => {
      out.push({ name: `${row.id} › ${where}`, entry, message });
    };
    for (const [key, request] of Object.entries(row.requests)) add(`requests.${key}`, 'interceptRequest', request);
    for (const [key, response] of Object.entries(row.responses)) add(`responses.${key}`, 'interceptResponse', response);
    for (const [key, sequence] of Object.entries(row.responseSequences ?? {})) {
      sequence.forEach((response, n) => add(`responseSequences.${key}[${n}]`, 'interceptResponse', response));
    }
    if (row.chain !== undefined) {
      row.chainProof.requests.forEach((request, n) => add(`chainProof.requests[${n}]`, 'interceptRequest', request));
      row.chainProof.observations.forEach((notification, n) => add(`chainProof.observations[${n}]`, 'observeNotification', notification));
      continue;
    }
    row.steps.forEach((step, n) => {
      if (step.op === 'emit') add(`steps[${n}].response`, 'interceptResponse', step.response);
      // Receiver refs are opaque strings, so the aliases stand in for them here.
      if (step.op === 'observe') add(`steps[${n}] observe notification`, 'observeNotification', observeNotificationFor(row, step));
    });
  }
  return out;
}

for (const name of FILES) {
  const file = canonicalInteropFile(name);
  const where = path.join(canonicalInteropCandidate(), name);
  const title = file ? name : `${name} (SKIPPED: no canonical fixture file at ${where})`;

  describe.skipIf(file === undefined)(title, () => {
    const messages = file ? wireMessages(loadLifecycleScenarioFileSync(file)) : [];

    test('the file has messages of every lifecycle entry point', () => {
      const entries = new Set(messages.map((m) => m.entry));
      expect([...entries].sort()).toEqual(['interceptRequest', 'interceptResponse', 'observeNotification']);
    });

    test.each(messages.map((m) => [`${m.entry} › ${m.name}`, m] as const))('ours: %s is valid', (_label, m) => {
      const check = loadValidators(OUR_SCHEMAS)[m.entry](m.message);
      expect(check.errors).toEqual([]);
    });

    describe.skipIf(canonicalSchemas === undefined)(
      canonicalSchemas ? 'canonical schemas agree' : `canonical schemas agree (SKIPPED: no canonical schemas at ${canonicalSchemaCandidate()})`,
      () => {
        test.each(messages.map((m) => [`${m.entry} › ${m.name}`, m] as const))('canonical: %s is valid', (_label, m) => {
          const check = loadValidators(canonicalSchemas as string)[m.entry](m.message);
          expect(check.errors).toEqual([]);
        });
      },
    );
  });
}

const lifecycleFile = canonicalInteropFile('lifecycle-scenarios.json');

describe.skipIf(lifecycleFile === undefined)('deliberate negatives built from the canonical lifecycle file', () => {
  const file = lifecycleFile ? loadLifecycleScenarioFileSync(lifecycleFile) : { version: 1 as const, scenarios: [] };
  const row = (id: string) => {
    const found = file.scenarios.find((s) => s.id === id);
    if (found === undefined) throw new Error(`canonical lifecycle file has no row ${id}`);
    return found;
  };
  const dirs = [OUR_SCHEMAS, ...(canonicalSchemas ? [canonicalSchemas] : [])];

  test('§11: the ask response with a reason is schema-invalid', () => {
    const response = cloneJson(row('ask-boundary-observed').responses.a as JsonObject);
    const effects = (response.result as JsonObject).effects as JsonObject[];
    expect(effects).toEqual([{ type: 'ask' }]);
    for (const dir of dirs) expect(loadValidators(dir).interceptResponse(response).valid, dir).toBe(true);
    effects[0]!.reason = 'confirm first';
    for (const dir of dirs) expect(loadValidators(dir).interceptResponse(response).valid, dir).toBe(false);
  });

  test('an observe notification carrying a JSON-RPC id, or a body reference with size/sha256, is invalid', () => {
    const scenario = row('changed-body-new-reference');
    if (scenario.chain !== undefined) throw new Error('expected a step script');
    const step = scenario.steps.find((s) => s.op === 'observe');
    if (step?.op !== 'observe') throw new Error('expected an observe step');
    const notification = observeNotificationFor(scenario, step) as unknown as JsonObject;
    const withId = { ...notification, id: 'changed-body-new-reference:a' };
    const withMetadata = cloneJson(notification);
    const item = (((withMetadata.params as JsonObject).event as JsonObject).items as JsonObject[])[0]!;
    item.body = { ref: 'changed-new-ref', size: 9, sha256: '11e2defd59f47c7f2aac84d6a5d6747e98e785afffb72c8bb7b05ec74e1d663c' };
    for (const dir of dirs) {
      const validators = loadValidators(dir);
      expect(validators.observeNotification(notification).valid, dir).toBe(true);
      expect(validators.observeNotification(withId).valid, dir).toBe(false);
      expect(validators.observeNotification(withMetadata).valid, dir).toBe(false);
    }
  });
});
