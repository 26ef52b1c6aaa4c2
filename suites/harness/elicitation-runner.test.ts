// The elicitation family's process handling against misbehaving adapters (ELICITATION-RULES §13.1
// and §10): a receiver that floods stderr and closes stdout, one that never prints its endpoint line,
// a sender that never exits, the argv and environment a receiver is started with, a pair where an
// adapter has no `elicitation` command (unsupported, nothing started), the conventional-location
// fallback, and the Go `go run` swap as the family uses it. Each fixture records its pid, and every
// test checks the process is gone when the family's call returns.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { familyEnvironment } from '../../harness/adapters/family-command.ts';
import { runOneShot } from '../../harness/families/elicitation/one-shot-process.ts';
import { preparePairCommands, resolvePairCommands } from '../../harness/families/elicitation/pair-commands.ts';
import { freshPairTokens, pairEnvironment, secretValues } from '../../harness/families/elicitation/pair-tokens.ts';
import { planElicitationPairs } from '../../harness/families/elicitation/pairs.ts';
import { RECEIVER_LABELS, startReceiver } from '../../harness/families/elicitation/receiver-process.ts';
import { loadElicitationCaseFileSync } from '../../harness/families/elicitation/load-elicitation-cases.ts';
import { runElicitationPair } from '../../harness/families/elicitation/run.ts';
import { recordedPids, survivorsAfter } from './support/recorded-pids.ts';
import { PROJECT_ROOT } from './support/child-vitest-run.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'suites', 'harness', 'fixtures');
const SCHEMAS = path.join(PROJECT_ROOT, 'schemas');

let work: string;
let pidDir: string;
beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'ahp-selftest-elicitation-runner-'));
  pidDir = path.join(work, 'pids');
  mkdirSync(pidDir);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function fixture(folder: string, name = folder.replace(/^elicitation-runner-/, '')): LoadedAdapter {
  const cwd = path.join(FIXTURES, folder);
  return loadAdapter({ name, cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
}

/** A pair's folder, its tokens and the environment every process of it gets (plus the pid dir). */
function pair(adapters: LoadedAdapter[]) {
  const dir = mkdtempSync(path.join(work, 'pair-'));
  const tokens = freshPairTokens();
  return { dir, tokens, secrets: secretValues(tokens), env: { ...pairEnvironment(tokens, familyEnvironment(adapters)), AHP_SELFTEST_PID_DIR: pidDir } };
}

async function expectAllGone(): Promise<void> {
  expect(await survivorsAfter(recordedPids(pidDir), 5000)).toEqual([]);
}

async function receiverOf(adapter: LoadedAdapter, startupMs: number) {
  const resolved = resolvePairCommands(adapter, adapter);
  if (!resolved.ok) throw new Error(resolved.reason);
  const { dir, env, secrets } = pair([adapter]);
  const command = resolved.commands.receiver;
  return startReceiver({ argv: command.argv, cwd: command.cwd, env, schemaDir: SCHEMAS, principal: `authenticated:${adapter.manifest.language}`, dir, startupMs, secrets });
}

describe('receiver startup', () => {
  test('a receiver that floods stderr and closes stdout fails startup with the tail of its stderr, bounded, and is ended', async () => {
    const start = await receiverOf(fixture('elicitation-runner-noisy-receiver'), 30_000);
    expect(start.ok).toBe(false);
    if (start.ok) return;
    expect(start.error.startsWith(`${RECEIVER_LABELS.failed}: `)).toBe(true);
    expect(start.error.endsWith('TAIL')).toBe(true);
    expect(start.error.length).toBeLessThan(1600);
    // It sleeps 20 s after closing stdout: the failure label (not the 15 s watchdog's) shows that
    // startup ended at the closed stdout, without a clock.
    await expectAllGone();
  });

  test('a receiver that never prints its endpoint line times out with the rules label and is ended', async () => {
    const start = await receiverOf(fixture('elicitation-runner-silent-receiver'), 1500);
    expect(start).toMatchObject({ ok: false, error: RECEIVER_LABELS.timedOut });
    await expectAllGone();
  });

  test('the receiver gets `server <schemaDir> authenticated:<senderLanguage>` and both tokens only through its environment', async () => {
    const adapter = fixture('elicitation-runner-echo-argv');
    const resolved = resolvePairCommands(adapter, adapter);
    if (!resolved.ok) throw new Error(resolved.reason);
    const { dir, env, secrets } = pair([adapter]);
    const command = resolved.commands.receiver;
    const start = await startReceiver({ argv: command.argv, cwd: command.cwd, env, schemaDir: SCHEMAS, principal: 'authenticated:go', dir, startupMs: 30_000, secrets });
    expect(start.ok).toBe(false);
    if (start.ok) return;
    const seen = JSON.parse(start.error.slice(`${RECEIVER_LABELS.failed}: `.length)) as { argv: string[]; tokens: string[] };
    expect(seen).toEqual({ argv: ['server', SCHEMAS, 'authenticated:go'], tokens: ['AHP_ELICITATION_TOKEN', 'AHP_ELICITATION_UPLOAD_TOKEN'] });
    for (const secret of secrets) expect(start.error).not.toContain(secret);
    await expectAllGone();
  });
});

describe('sender processes', () => {
  test('a sender step that never exits is ended by the step watchdog, with the plan file removed', async () => {
    const adapter = fixture('elicitation-runner-hanging-sender');
    const resolved = resolvePairCommands(adapter, adapter);
    if (!resolved.ok) throw new Error(resolved.reason);
    const { dir, env, tokens } = pair([adapter]);
    const plan = { endpoint: 'http://127.0.0.1:9', token: tokens.eventToken, uploadToken: tokens.uploadToken, steps: [{ path: '/receipts', bytes: '' }] };
    const outcome = await runOneShot({ argv: [...resolved.commands.sender.argv, 'client'], cwd: resolved.commands.sender.cwd, env, input: plan, dir, name: 'sender', timeoutMs: 1500 });
    expect(outcome).toMatchObject({ kind: 'timeout', timeoutMs: 1500 });
    expect(() => readFileSync(path.join(dir, 'sender.stdin.json'))).toThrow();
    await expectAllGone();
  });
});

describe('pair planning', () => {
  test('a pair where either adapter has no elicitation command is unsupported with the reason, and no process is started', () => {
    const withIt = fixture('elicitation-runner-echo-argv', 'has-it');
    const without = loadAdapter({ name: 'without', cwd: path.join(FIXTURES, 'process-fake-adapter'), adapterFile: path.join(FIXTURES, 'process-server-hang', 'interop', 'adapter.json') });
    const before = recordedPids(pidDir).size;
    const groups = planElicitationPairs(new Map([['has-it', withIt], ['without', without]]), null);
    expect(groups.map((group) => group.label)).toEqual(['has-it→has-it http/bearer', 'has-it→without http/bearer', 'without→has-it http/bearer', 'without→without http/bearer']);
    expect(groups.map((group) => group.unsupported === undefined)).toEqual([true, false, false, false]);
    for (const group of groups.slice(1)) expect(group.unsupported).toMatch(/^unsupported: adapter "without" declares no "elicitation" command/);
    expect(recordedPids(pidDir).size).toBe(before);
  });

  test('the config pairings restrict the grid: server is the receiver, client the sender', () => {
    const a = fixture('elicitation-runner-echo-argv', 'a');
    const b = fixture('elicitation-runner-silent-receiver', 'b');
    const groups = planElicitationPairs(new Map([['a', a], ['b', b]]), [{ server: 'b', client: 'a' }]);
    expect(groups.map((group) => [group.label, group.client.name, group.server.name])).toEqual([['a→b http/bearer', 'a', 'b']]);
  });

  test('an adapter without the key but with the conventional file for its language is used from there, and the pair says so', () => {
    const cwd = mkdtempSync(path.join(work, 'conventional-'));
    mkdirSync(path.join(cwd, 'interop'));
    writeFileSync(path.join(cwd, 'interop', 'adapter.json'), JSON.stringify({ language: 'typescript', server: ['node', 's.mjs'], client: ['node', 'c.mjs'] }));
    writeFileSync(path.join(cwd, 'interop', 'elicitation.mjs'), '// conventional location\n');
    const adapter = loadAdapter({ name: 'conventional', cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
    const [group] = planElicitationPairs(new Map([['conventional', adapter]]), null);
    expect(group!.unsupported).toBeUndefined();
    const resolved = resolvePairCommands(adapter, adapter);
    if (!resolved.ok) throw new Error(resolved.reason);
    expect(resolved.commands.sender.argv).toEqual(['node', path.join(cwd, 'interop', 'elicitation.mjs')]);
    expect(resolved.commands.sender.notes.join('\n')).toContain('conventional');
  });
});

describe('the same faults through a pair run', () => {
  const file = loadElicitationCaseFileSync(path.join(PROJECT_ROOT, 'fixtures', 'elicitation.json'));
  const reference = (() => {
    const cwd = path.join(PROJECT_ROOT, 'adapters', 'reference');
    return loadAdapter({ name: 'reference', cwd, adapterFile: path.join(cwd, 'interop', 'adapter.json') });
  })();
  async function runPair(sender: LoadedAdapter, receiver: LoadedAdapter, ids: string[], watchdogs: { startupMs: number; runMs: number }) {
    const [group] = planElicitationPairs(new Map([[sender.name, sender], [receiver.name, receiver]]), [{ client: sender.name, server: receiver.name }]);
    const runDir = mkdtempSync(path.join(work, 'run-'));
    return runElicitationPair(group!, ids, { file, schemaDir: SCHEMAS, runDir, logDir: path.join(runDir, 'logs'), watchdogs });
  }

  test('a receiver startup failure fails every selected case of the pair with the startup label, charged to the receiver', { timeout: 60_000 }, async () => {
    const noisy = fixture('elicitation-runner-noisy-receiver');
    const result = await runPair(noisy, noisy, ['form-decline', 'atomic/before-return'], { startupMs: 30_000, runMs: 30_000 });
    for (const id of ['form-decline', 'atomic/before-return']) {
      const row = result.rows.get(id)!;
      expect(row.verdict).toBe('failed');
      expect(row.errors).toHaveLength(1);
      expect(row.errors[0]!.startsWith(`${RECEIVER_LABELS.failed}: `) && row.errors[0]!.endsWith('TAIL')).toBe(true);
      expect(row.reason).toContain('] receiver: ');
    }
    await expectAllGone();
  });

  test('a sender step that hangs fails its case with the timeout text, and the pair goes on to its other cases', { timeout: 60_000 }, async () => {
    const hanging = fixture('elicitation-runner-hanging-sender');
    const result = await runPair(hanging, reference, ['form-decline', 'probe/unauthenticated-receipts'], { startupMs: 20_000, runMs: 2000 });
    const decline = result.rows.get('form-decline')!;
    expect(decline.verdict).toBe('failed');
    expect(decline.errors).toContain(`Command '${hanging.name} client' timed out after 2 seconds`);
    const probe = result.rows.get('probe/unauthenticated-receipts')!;
    expect(probe.verdict).toBe('failed');
    expect(probe.errors).toEqual(['unauthenticated access accepted']);
    await expectAllGone();
  });
});

describe('the conventional-location fallback through a pair run', () => {
  test('an SDK that declares no key but ships interop/elicitation.mjs is run from there, and the report says so', { timeout: 120_000 }, async () => {
    const adapter = fixture('elicitation-runner-conventional');
    const [group] = planElicitationPairs(new Map([[adapter.name, adapter]]), null);
    expect(group!.unsupported).toBeUndefined();
    const file = loadElicitationCaseFileSync(path.join(PROJECT_ROOT, 'fixtures', 'elicitation.json'));
    const runDir = mkdtempSync(path.join(work, 'run-'));
    const result = await runElicitationPair(group!, ['form-decline'], { file, schemaDir: SCHEMAS, runDir, logDir: path.join(runDir, 'logs'), watchdogs: { startupMs: 20_000, runMs: 30_000 } });
    const row = result.rows.get('form-decline')!;
    expect(row.verdict, row.reason).toBe('passed');
    const notes = row.details?.commandNotes as string[] | undefined;
    expect(notes?.some((note) => note.includes('declares no "elicitation" command') && note.includes('interop/elicitation.mjs'))).toBe(true);
  });
});

const goAvailable = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(goAvailable)('the Go `go run` swap', () => {
  test('a receiver declared as ["go","run","./cmd/elicitation"] runs from a binary built once into the run dir', { timeout: 180_000 }, async () => {
    const adapter = fixture('elicitation-runner-go');
    const resolved = resolvePairCommands(adapter, adapter);
    if (!resolved.ok) throw new Error(resolved.reason);
    const buildDir = path.join(work, 'go-builds');
    const prepared = await preparePairCommands(resolved.commands, buildDir);
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(prepared.commands.receiver.argv).toHaveLength(1);
    expect(prepared.commands.receiver.argv[0]!.startsWith(buildDir)).toBe(true);
    expect(prepared.commands.receiver.notes.some((note) => note.includes('go run'))).toBe(true);
    const { dir, env, secrets } = pair([adapter]);
    const start = await startReceiver({ argv: prepared.commands.receiver.argv, cwd: prepared.commands.receiver.cwd, env, schemaDir: SCHEMAS, principal: 'authenticated:go', dir, startupMs: 30_000, secrets });
    expect(start.ok).toBe(false);
    if (start.ok) return;
    expect(start.error).toContain(`executable=${prepared.commands.receiver.argv[0]} args=server ${SCHEMAS} authenticated:go`);
  });
});
