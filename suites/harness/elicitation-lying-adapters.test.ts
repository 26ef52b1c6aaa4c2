// The elicitation family against lying adapters (fixtures/elicitation-fakes/<lie>/, each the reference
// elicitation adapter with one lie): every lie runs through the REAL family run (runElicitationPair:
// processes, plans, receipts, the verifier) paired with the honest reference adapter, over ONLY the
// cases it touches plus a few it does not. Each touched case must fail with the check's verbatim label
// charged to the right party; each control case of the same run must pass (so a lie is caught by what
// it does, not by a pair that fails everything); and no process of the run may outlive it.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import { liveCount } from '../../harness/adapters/supervise.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import type { Party } from '../../harness/families/elicitation/case-types.ts';
import { loadElicitationCaseFileSync } from '../../harness/families/elicitation/load-elicitation-cases.ts';
import { planElicitationPairs } from '../../harness/families/elicitation/pairs.ts';
import { runElicitationPair } from '../../harness/families/elicitation/run.ts';
import { LABELS, statusLabel } from '../../harness/families/elicitation/verify/labels.ts';
import type { RowOutcome } from '../../harness/setup/grouped-suite.ts';
import { PROJECT_ROOT, referenceAdapter } from './support/child-vitest-run.ts';

const FAKES = path.join(PROJECT_ROOT, 'suites', 'harness', 'fixtures', 'elicitation-fakes');
const FILE = loadElicitationCaseFileSync(path.join(PROJECT_ROOT, 'fixtures', 'elicitation.json'));
const WATCHDOGS = { startupMs: 20_000, runMs: 30_000 };
const INTERCEPT_400_GOT_200 = statusLabel('/hooks/intercept', 400, 200);
const INTERCEPT_200_GOT_400 = statusLabel('/hooks/intercept', 200, 400);

interface Lie {
  /** The fake's folder under fixtures/elicitation-fakes/. */
  fake: string;
  /** Which side of the pair lies; the reference adapter is the other. */
  role: 'sender' | 'receiver';
  /** Cases the lie touches: each must fail with one of `labels`, charged to `party`. */
  touched: string[];
  labels: string[];
  party: Party;
  /** Cases of the same run the lie does not touch: each must pass. */
  controls: string[];
}

// The cheapest cases that show each lie: two-step metadata cases where a case with uploads is not needed.
const METADATA_ACCEPTED = 'form-metadata-no-upload';
const METADATA_REFUSED_RESULT = 'correlation-metadata-missing-parent';
const CONCURRENT = 'concurrent-reverse-settlement';

// The party is the one the evidence can tell: a refused raw POST or a receipt of a raw POST is the
// receiver's; a status or receipt of an intercept the sender's SDK delivered itself cannot separate a
// sender that sent something else from a receiver that recorded something else (`either`).
const LIES: Lie[] = [
  { fake: 'gap-accepted', role: 'receiver', touched: ['selected-request-gap-fails-closed'], labels: [INTERCEPT_400_GOT_200], party: 'receiver', controls: [METADATA_ACCEPTED] },
  { fake: 'form-default-applied', role: 'receiver', touched: ['submitted-form-default-not-injected'], labels: [LABELS.receiptsDiffer], party: 'receiver', controls: ['submitted-form-default-not-applied'] },
  { fake: 'default-mode-injected', role: 'receiver', touched: ['form-default-mode'], labels: [LABELS.receiptsDiffer], party: 'receiver', controls: [METADATA_ACCEPTED] },
  { fake: 'principal-from-source', role: 'receiver', touched: [METADATA_ACCEPTED], labels: [LABELS.receiptsDiffer], party: 'receiver', controls: ['probe/upload-wrong-credential'] },
  { fake: 'failed-result-consumes-pending', role: 'receiver', touched: [CONCURRENT], labels: [INTERCEPT_200_GOT_400], party: 'either', controls: ['correlation-metadata-wrong-session'] },
  { fake: 'duplicate-replaces-pending', role: 'receiver', touched: [CONCURRENT], labels: [INTERCEPT_400_GOT_200], party: 'receiver', controls: [METADATA_ACCEPTED] },
  { fake: 'receipts-without-bearer', role: 'receiver', touched: ['probe/unauthenticated-receipts'], labels: [LABELS.unauthenticatedAccessAccepted], party: 'receiver', controls: [METADATA_ACCEPTED] },
  { fake: 'sender-repairs-digest', role: 'sender', touched: ['request-digest-mismatch'], labels: [INTERCEPT_400_GOT_200], party: 'sender', controls: [METADATA_ACCEPTED] },
  { fake: 'sender-rewrites-envelope', role: 'sender', touched: [METADATA_ACCEPTED], labels: [LABELS.receiptsDiffer], party: 'either', controls: [METADATA_REFUSED_RESULT] },
  {
    fake: 'atomic-partial-publication',
    role: 'sender',
    touched: ['atomic/invalid-second-effect-rollback', 'atomic/ungranted-second-effect-rollback', 'atomic/conflicting-terminal-effects'],
    labels: [LABELS.partialFailedResult],
    party: 'sender',
    controls: ['atomic/ungranted-return'],
  },
  { fake: 'atomic-mutates-input', role: 'sender', touched: ['atomic/invalid-second-effect-rollback'], labels: [LABELS.atomicMutatedInput], party: 'sender', controls: ['atomic/before-deny'] },
];

function fakeAdapter(fake: string): LoadedAdapter {
  const cwd = path.join(FAKES, fake);
  return loadAdapter({ name: fake, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
}

let runDir: string;
const outcomes = new Map<string, Promise<Map<string, RowOutcome>>>();

beforeAll(() => {
  runDir = mkdtempSync(path.join(os.tmpdir(), 'ahp-selftest-elicitation-lies-'));
  const reference = (() => {
    const entry = referenceAdapter();
    return loadAdapter({ ...entry, adapterFile: path.join(entry.cwd, 'interop', 'adapter.json') });
  })();
  // Two pairs at a time, like the default config's parallelism.
  let chain: Array<Promise<unknown>> = [Promise.resolve(), Promise.resolve()];
  LIES.forEach((lie, i) => {
    const fake = fakeAdapter(lie.fake);
    const adapters = new Map([[fake.name, fake], [reference.name, reference]]);
    const pairing = lie.role === 'sender' ? { client: fake.name, server: reference.name } : { client: reference.name, server: fake.name };
    const [group] = planElicitationPairs(adapters, [pairing]);
    const ids = [...lie.touched, ...lie.controls];
    const slot = i % chain.length;
    const run = chain[slot]!.then(() => runElicitationPair(group!, ids, { file: FILE, schemaDir: path.join(PROJECT_ROOT, 'schemas'), runDir, logDir: path.join(runDir, 'logs'), watchdogs: WATCHDOGS })).then((result) => result.rows);
    chain = chain.map((link, j) => (j === slot ? run.catch(() => undefined) : link));
    run.catch(() => undefined);
    outcomes.set(lie.fake, run);
  });
});

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

describe.each(LIES)('$fake ($role)', (lie) => {
  test(`fails exactly the touched cases with the check's label, charged to ${lie.party === 'either' ? 'either party' : `the ${lie.party}`}`, { timeout: 240_000 }, async () => {
    const rows = await outcomes.get(lie.fake)!;
    for (const id of lie.touched) {
      const row = rows.get(id);
      expect(row?.verdict, `${lie.fake} › ${id}: ${row?.reason}`).toBe('failed');
      expect(row!.errors.some((label) => lie.labels.includes(label)), `${lie.fake} › ${id}: labels ${JSON.stringify(row!.errors)}, expected one of ${JSON.stringify(lie.labels)}`).toBe(true);
      const charged = row!.reason.split('\n').filter((line) => lie.labels.some((label) => line.startsWith(`[${label}] `)));
      expect(charged.length, row!.reason).toBeGreaterThan(0);
      for (const line of charged) expect(line, row!.reason).toContain(`] ${lie.party}: `);
    }
    for (const id of lie.controls) {
      const row = rows.get(id);
      expect(row?.verdict, `${lie.fake} › ${id} (untouched by the lie): ${row?.reason}`).toBe('passed');
    }
  });
});

test('once every pair has ended, none of their processes is left', { timeout: 600_000 }, async () => {
  await Promise.allSettled(outcomes.values());
  expect(liveCount()).toBe(0);
});
