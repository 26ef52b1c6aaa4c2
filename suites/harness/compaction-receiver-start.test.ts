// COMPACTION-RULES §13 "Startup", through the family's real receiver start: a receiver that floods
// stderr and exits fails with exactly `receiver startup failed: ` and the last 1500 bytes of its
// stderr (under 1600 characters, ending with the tail, a secret of the pair redacted), one process
// was started and it is reaped; a silent receiver fails `receiver startup timeout` under the
// watchdog and is reaped too.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, expect, test } from 'vitest';

import { pidAlive } from '../../harness/adapters/supervise.ts';
import { startHttpReceiver } from '../../harness/families/compaction/receiver-start.ts';
import { LABEL } from '../../harness/families/compaction/verify/labels.ts';

const work = mkdtempSync(path.join(os.tmpdir(), 'ahp-compaction-start-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('a noisy receiver that exits: the rules exact message, bounded, and reaped', async () => {
  const secret = 'sEcReT-token-value-123';
  const script = `process.stderr.write('token ${secret}\\n' + 'x'.repeat(100000) + 'TAIL', () => process.exit(3))`;
  const started = await startHttpReceiver({ argv: [process.execPath, '-e', script], cwd: work, env: {}, workDir: work, secrets: [secret] });
  expect(started.ok).toBe(false);
  if (started.ok) return;
  expect(started.check).toEqual({ label: LABEL.startupFailed, party: 'receiver', message: `receiver startup failed: ${'x'.repeat(1496)}TAIL` });
  expect(started.check.message.length).toBeLessThan(1600);
  expect(started.pids).toHaveLength(2);
  for (const pid of started.pids) expect(pidAlive(pid)).toBe(false);
});

test('a secret in the quoted tail is redacted', async () => {
  const secret = 'sEcReT-token-value-456';
  const script = `process.stderr.write('x'.repeat(100) + ' ${secret} TAIL', () => process.exit(3))`;
  const started = await startHttpReceiver({ argv: [process.execPath, '-e', script], cwd: work, env: {}, workDir: work, secrets: [secret] });
  expect(started.ok).toBe(false);
  if (started.ok) return;
  expect(started.check.message).not.toContain(secret);
  expect(started.check.message).toMatch(/\[redacted secret\] TAIL$/);
});

test('a receiver that never prints its endpoint: receiver startup timeout, reaped', async () => {
  const started = await startHttpReceiver({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], cwd: work, env: {}, workDir: work, secrets: [], readyMs: 500 });
  expect(started.ok).toBe(false);
  if (started.ok) return;
  expect(started.check.label).toBe(LABEL.startupTimeout);
  expect(started.check.message.startsWith('receiver startup timeout')).toBe(true);
  for (const pid of started.pids) expect(pidAlive(pid)).toBe(false);
});
