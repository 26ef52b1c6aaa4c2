// The bad-config tests of the lifecycle family's executables: a temporary folder for the current
// describe, baseline server and HTTP client configs of a suite (pointing at nothing; `extra` merged
// in, `undefined` removing a key), and the one assertion every case makes — exit 2, the expected
// message naming the config file, no stack trace.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import { writePrivateJson } from '../../../harness/adapters/private-json.ts';
import { killLaunched, launchReference, REFERENCE_ADAPTER } from './reference-processes.ts';

export const UPLOAD_TOKEN = 'TEST-ONLY-independent-upload-token';

export interface BadConfigKit {
  /** The path of `name` in the folder. */
  file(name: string): string;
  /** Writes `value` as `name` in the folder; returns its path. */
  write(name: string, value: unknown): string;
  server(extra: Record<string, unknown>): Record<string, unknown>;
  client(extra: Record<string, unknown>): Record<string, unknown>;
  /**
   * Runs `side` with `config`: exit 2 and `message` on stderr, not a stack trace. A config error names
   * the config file; a scenario file error (`scenarioError`) names the scenario file, which `message` checks.
   */
  expectRefused(side: 'lifecycleServer' | 'lifecycleClient', config: Record<string, unknown>, message: RegExp, scenarioError?: boolean): Promise<void>;
}

/** Registers the folder's beforeAll/afterAll in the current describe. */
export function useBadConfigs(tmpPrefix: string, suite: 'lifecycle' | 'catalogue', scenarioFile: (kit: BadConfigKit) => string): BadConfigKit {
  let dir = '';
  let counter = 0;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), tmpPrefix));
  });
  afterAll(async () => {
    await killLaunched();
    rmSync(dir, { recursive: true, force: true });
  });
  const kit: BadConfigKit = {
    file: (name) => path.join(dir, name),
    write(name, value) {
      const file = kit.file(name);
      writePrivateJson(file, value);
      return file;
    },
    server: (extra) => ({
      suite,
      transport: 'http',
      readinessFile: path.join(dir, 'ready.json'),
      scenarioFile: scenarioFile(kit),
      auth: { mode: 'none' },
      uploadAuth: { token: UPLOAD_TOKEN },
      ...extra,
    }),
    client: (extra) => ({
      suite,
      transport: 'http',
      scenarioFile: scenarioFile(kit),
      reportFile: path.join(dir, 'report.json'),
      auth: { mode: 'none' },
      endpoint: 'http://127.0.0.1:9',
      controlEndpoint: 'http://127.0.0.1:9',
      ...extra,
    }),
    async expectRefused(side, config, message, scenarioError = false) {
      const file = kit.write(`${side}-${++counter}.json`, config);
      const result = await launchReference(REFERENCE_ADAPTER[side], file, { timeoutMs: 20_000 });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      if (!scenarioError) expect(result.stderr).toContain(file);
    },
  };
  return kit;
}
