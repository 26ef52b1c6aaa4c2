// The compaction family against lying adapters (fixtures/compaction-fakes/*: the reference
// compaction adapter with one flaw each). The REAL `compaction` vitest project runs once as a child
// with every fake: a lying host as the sender against the honest reference receiver, a lying receiver
// against the honest reference sender. `-t` selects only the rows each lie touches, plus one row it
// must leave alone where there is one, so each fake is shown to fail exactly its cases, with the
// label and the party, and nothing else. Afterwards no process of the run is left and no run dir.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { LABEL } from '../../harness/families/compaction/verify/labels.ts';
import { fixtureAdapter, PROJECT_ROOT, referenceAdapter, removeChildRun } from './support/child-vitest-run.ts';
import { completeChildRun, type CompletedRun } from './support/completed-child-run.ts';
import { groupRows } from './support/vitest-json-report.ts';

const CHILD_TIMEOUT_MS = 180_000;

interface Lie {
  side: 'sender' | 'receiver';
  transport: 'http' | 'stdio';
  /** Row → the label (and party) it must fail with; `passes` for a row the lie must not touch. */
  rows: Record<string, { label: string; party: 'sender' | 'receiver' | 'either' } | 'passes'>;
}

const sender = (label: string) => ({ label, party: 'sender' as const });
const receiver = (label: string) => ({ label, party: 'receiver' as const });

const LIES: Record<string, Lie> = {
  'host-commits-partial-compound': {
    side: 'sender',
    transport: 'http',
    rows: { 'before-atomic': sender(LABEL.instructions), 'after-atomic': sender(LABEL.messageLeak), 'after-closed': sender(LABEL.contentLeak), chain: 'passes' },
  },
  'host-undoes-generation': { side: 'sender', transport: 'http', rows: { 'after-closed': sender(LABEL.generated), 'closed-keeps-summary': sender(LABEL.generated), 'after-open': 'passes' } },
  'host-continues-after-fail-closed': { side: 'sender', transport: 'http', rows: { 'after-closed': sender(LABEL.missingHooks), 'closed-keeps-summary': sender(LABEL.missingHooks), 'before-closed': 'passes' } },
  // Reversed, before-open's two hooks see the same text: only the order of the traced scopes shows it.
  'host-out-of-order': { side: 'sender', transport: 'http', rows: { chain: sender(LABEL.instructions), 'before-open': sender(LABEL.hookOrder) } },
  'host-seen-omits-rejected': { side: 'sender', transport: 'http', rows: { 'before-open': sender(LABEL.missingHooks), 'after-atomic': sender(LABEL.missingHooks), chain: 'passes' } },
  'receiver-repairs-invalid-effects': { side: 'receiver', transport: 'http', rows: { 'before-open': receiver(LABEL.receiverReply), 'after-closed': receiver(LABEL.receiverReply), chain: 'passes' } },
  'receiver-receipt-for-rejected': {
    side: 'receiver',
    transport: 'http',
    rows: { 'probe:missing-trigger': receiver(LABEL.rejectedRecorded), 'probe:legacy-body': receiver(LABEL.rejectedRecorded), chain: 'passes' },
  },
  // before-closed settles as expected (its only hook fails closed anyway): only the recorded wire shows the second line.
  'stdio-receiver-second-line': { side: 'receiver', transport: 'stdio', rows: { 'before-closed': receiver(LABEL.stdioExtraOutput) } },
};

// The reference adapter with one key of its adapter.json removed (and no conventional file to fall back on).
const manifests = mkdtempSync(path.join(os.tmpdir(), 'ahp-compaction-manifests-'));
function referenceWithout(key: string, name: string): { name: string; cwd: string; adapterFile: string } {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'adapters', 'reference', 'interop', 'adapter.json'), 'utf8')) as Record<string, unknown>;
  delete manifest[key];
  const adapterFile = path.join(manifests, `${name}.json`);
  writeFileSync(adapterFile, JSON.stringify(manifest));
  return { ...referenceAdapter(name), adapterFile };
}
/** A sender with no transport adapter: its probe rows fail saying so, its cases still run. */
const NO_PROBE = 'no-compaction-client';
/** An adapter with no wire adapter: its pairs are unsupported, nothing starts. */
const NO_WIRE = 'no-compaction-wire';
const EXTRA: Record<string, Lie> = {
  [NO_PROBE]: { side: 'sender', transport: 'http', rows: { 'probe:scalar-instructions': sender(LABEL.unsupportedProbe), chain: 'passes' } },
};

const AUTH = { http: 'bearer', stdio: 'none' } as const;
const groupOf = (fake: string, lie: Lie) => (lie.side === 'sender' ? `${fake}→reference` : `reference→${fake}`) + ` ${lie.transport}/${AUTH[lie.transport]}`;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ALL: Record<string, Lie> = { ...LIES, ...EXTRA };
const UNSUPPORTED_GROUP = `${NO_WIRE}→reference http/bearer`;
const SELECTION = `(?:^| )(?:${escape(UNSUPPORTED_GROUP)} chain|${Object.entries(ALL)
  .flatMap(([fake, lie]) => Object.keys(lie.rows).map((row) => `${escape(groupOf(fake, lie))} ${escape(row)}`))
  .join('|')})$`;

const run = {} as CompletedRun;

beforeAll(async () => {
  Object.assign(
    run,
    await completeChildRun({
      name: 'compaction-fakes',
      project: 'compaction',
      config: {
        adapters: [referenceAdapter(), ...Object.keys(LIES).map((fake) => fixtureAdapter(`compaction-fakes/${fake}`, fake)), referenceWithout('compaction', NO_PROBE), referenceWithout('compactionWire', NO_WIRE)],
        pairings: [
          ...Object.entries(ALL).map(([fake, lie]) => (lie.side === 'sender' ? { server: 'reference', client: fake } : { server: fake, client: 'reference' })),
          { server: 'reference', client: NO_WIRE },
        ],
        transports: ['http', 'stdio'],
        watchdogs: { startupMs: 20_000, runMs: 60_000 },
      },
      timeoutMs: CHILD_TIMEOUT_MS,
      options: { args: ['-t', SELECTION] },
      runDirPrefix: 'ahp-compaction-',
    }),
  );
}, CHILD_TIMEOUT_MS + 20_000);

afterAll(() => {
  if (run.dirs) removeChildRun(run.dirs);
  rmSync(manifests, { recursive: true, force: true });
});

/** Processes whose argv names the child's temp folder (every receiver's store and config live there). */
function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (argv.includes(dir)) found.push(`${pid}: ${argv.split('\0').join(' ').slice(0, 200)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('lying compaction adapters (one compaction run over only the rows each lie touches)', () => {
  test('the run ended by itself, only the selected rows ran, and no process or run dir is left', () => {
    expect(run.timedOut, run.output.slice(-4000)).toBe(false);
    expect(run.exitCode, run.output.slice(-4000)).toBe(1);
    const ran = run.rows.filter((row) => row.status !== 'skipped').map((row) => `${row.ancestorTitles.at(-1)} ${row.title}`);
    expect(new Set(ran)).toEqual(new Set(Object.entries(ALL).flatMap(([fake, lie]) => Object.keys(lie.rows).map((row) => `${groupOf(fake, lie)} ${row}`))));
    expect(processesUnder(run.tmpDir)).toEqual([]);
    expect(run.leftover).toEqual([]);
  });

  test('a pair whose sender has no compactionWire is unsupported: skipped with the reason, never run', () => {
    const rows = groupRows(run.rows, UNSUPPORTED_GROUP);
    const chain = rows.find((row) => row.title === 'chain');
    expect(chain?.status, run.output.slice(-2000)).toBe('skipped');
    expect(chain?.meta?.ahpMatrix?.skipReason).toMatch(/^unsupported: adapter "no-compaction-wire" declares no "compactionWire" command/);
  });

  test.for(Object.keys(ALL))('%s fails exactly its rows, each with its label and party', (fake) => {
    const lie = ALL[fake]!;
    const group = groupOf(fake, lie);
    const rows = groupRows(run.rows, group);
    for (const [id, wanted] of Object.entries(lie.rows)) {
      const row = rows.find((r) => r.title === id);
      expect(row, `${group} › ${id} did not run; child output:\n${run.output.slice(-3000)}`).toBeDefined();
      const message = row!.failureMessages.join('\n');
      if (wanted === 'passes') {
        expect(row!.status, `${group} › ${id} must pass; it failed with:\n${message}`).toBe('passed');
        continue;
      }
      expect(row!.status, `${group} › ${id} must fail`).toBe('failed');
      expect(row!.meta?.ahpMatrix?.errors ?? [], `${group} › ${id}: its labels; the message:\n${message}`).toContain(wanted.label);
      expect(message).toContain(`[${wanted.label}] ${wanted.party}:`);
    }
  });
});
