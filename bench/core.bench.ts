// Core matrix wall time: the full default `core` project versus its floor — the very same client
// processes run directly on the same scenario file, with no vitest and no harness (one HTTP server
// per (adapter, auth mode) started by hand with the same synthetic trust, the stdio client spawning
// its own server). The ratio is the harness's overhead.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { loadConfig, projectRoot } from '../harness/config/load-config.ts';
import { createRunTrust } from '../harness/auth/run-trust.ts';
import { httpServerKey, isRunnable, loadAdapters, planMatrix } from '../harness/runs/plan.ts';
import { waitForReadiness } from '../harness/adapters/readiness.ts';
import { formatDuration, type Bench, type BenchOutput } from './lib/measure.ts';

const ROUNDS = 2;

async function timeHarness(configFile: string): Promise<number> {
  const start = performance.now();
  const run = await execa(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'core', '--reporter=dot'], {
    cwd: projectRoot(),
    env: { AHP_CONFIG: configFile },
    reject: false,
    timeout: 600_000,
  });
  const ms = performance.now() - start;
  if (run.exitCode !== 0) throw new Error(`core project failed (exit ${run.exitCode}); run it directly to see why`);
  return ms;
}

/** The default matrix's client runs with nothing around them, as a user script would do them. */
async function timeFloor(work: string): Promise<number> {
  const config = await loadConfig();
  const groups = planMatrix(config, loadAdapters(config)).filter(isRunnable);
  const scenarioFile = config.scenarios.core!;
  const start = performance.now();
  const trust = await createRunTrust(config.auth, work);
  const servers = new Map<string, { endpoint: string; stop: () => Promise<void> }>();
  for (const group of groups.filter((g) => g.transport === 'http')) {
    const key = httpServerKey(group.server.name, group.auth);
    if (servers.has(key)) continue;
    const dir = mkdtempSync(path.join(work, 'server-'));
    const readinessFile = path.join(dir, 'ready.json');
    const serverConfig = path.join(dir, 'server.json');
    writeFileSync(serverConfig, JSON.stringify({ transport: 'http', readinessFile, scenarioFile, auth: trust.server(group.auth) }), { mode: 0o600 });
    const [command, ...args] = group.server.manifest.server;
    const child = execa(command!, [...args, '--config', serverConfig], { cwd: group.server.cwd, reject: false });
    const exited = child.then((result) => ({ code: result.exitCode ?? null, signal: (result.signal ?? null) as NodeJS.Signals | null }));
    const readiness = await waitForReadiness(readinessFile, { timeoutMs: config.watchdogs.startupMs, exited });
    servers.set(key, {
      endpoint: readiness.endpoint!,
      stop: async () => {
        child.kill('SIGTERM');
        await child;
      },
    });
  }
  const queue = [...groups];
  const worker = async (): Promise<void> => {
    for (let group = queue.shift(); group; group = queue.shift()) {
      const dir = mkdtempSync(path.join(work, 'client-'));
      const clientConfig = path.join(dir, 'client.json');
      const base = { transport: group.transport, scenarioFile, reportFile: path.join(dir, 'report.json'), auth: trust.client(group.auth) };
      if (group.transport === 'http') {
        writeFileSync(clientConfig, JSON.stringify({ ...base, endpoint: servers.get(httpServerKey(group.server.name, group.auth))!.endpoint }), { mode: 0o600 });
      } else {
        const serverConfig = path.join(dir, 'server.json');
        writeFileSync(serverConfig, JSON.stringify({ transport: 'stdio', readinessFile: path.join(dir, 'ready.json'), scenarioFile, auth: { mode: 'none' } }));
        writeFileSync(
          clientConfig,
          JSON.stringify({ ...base, serverCommand: group.server.manifest.server, serverCwd: group.server.cwd, serverConfig }),
        );
      }
      const [command, ...args] = group.client.manifest.client;
      const result = await execa(command!, [...args, '--config', clientConfig], { cwd: group.client.cwd, reject: false });
      if (result.exitCode !== 0) throw new Error(`floor run ${group.label} failed (exit ${result.exitCode})`);
    }
  };
  await Promise.all(Array.from({ length: config.parallelism }, worker));
  const ms = performance.now() - start;
  await Promise.all([...servers.values()].map((server) => server.stop()));
  await trust.close();
  return ms;
}

export const coreBench: Bench = {
  name: 'core',
  async run(out: BenchOutput) {
    out.section('Core matrix wall time: the default core project vs the same client runs with no harness');
    const work = mkdtempSync(path.join(os.tmpdir(), 'ahp-bench-core-'));
    try {
      // A copy of the default config whose reports go to the temp dir, so the bench never
      // overwrites a real report.
      const config = await loadConfig();
      const configFile = path.join(work, 'config.json');
      writeFileSync(
        configFile,
        JSON.stringify({
          schemas: config.schemas,
          scenarios: config.scenarios,
          adapters: config.adapters,
          transports: config.transports,
          auth: config.auth,
          watchdogs: config.watchdogs,
          parallelism: config.parallelism,
          reports: path.join(work, 'reports'),
        }),
      );
      const harness: number[] = [];
      const floor: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        floor.push(await timeFloor(work));
        harness.push(await timeHarness(configFile));
      }
      const best = (values: number[]): number => Math.min(...values);
      out.line(`  floor: client processes alone (best of ${ROUNDS})            ${formatDuration(best(floor)).padStart(10)}`);
      out.line(`  harness: npx vitest run --project core (best of ${ROUNDS})   ${formatDuration(best(harness)).padStart(10)}`);
      out.line(`  ratio harness vs floor: ${(best(harness) / best(floor)).toFixed(2)}× the floor's wall time`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
