import { afterAll, beforeAll, describe, test } from 'vitest';

import type { Baseline } from '../baseline/baseline.ts';
import { finishTest } from '../baseline/finish-test.ts';

import { stopHttpServer, ServerStartError } from '../adapters/http-server-pool.ts';
import { startLifecycleServer } from './lifecycle-server.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';

/** What each receiver probe test records for the reporters. */
export interface ReceiverProbeMeta {
  project: string;
  server: string;
  auth: string;
  probe: string;
  label: string;
}

declare module 'vitest' {
  interface TaskMeta {
    ahpProbe?: ReceiverProbeMeta;
  }
}

/**
 * A family's harness-driven receiver probes: the probes in order, and one run of all of them against
 * a fresh HTTP server of the family (`suite` in its config) with the client's event auth of the mode.
 * Each result is the probe's problem, or undefined when it passed.
 */
export interface ReceiverProbeFamily<Name extends string = string> {
  suite: 'lifecycle' | 'catalogue';
  probes: ReadonlyArray<{ name: Name; label: string }>;
  run(server: ServerHandle, clientAuth: ClientAuthSettings): Promise<Record<Name, string | undefined>>;
}

export interface ReceiverProbeSuiteOptions {
  config: ResolvedConfig;
  adapters: LoadedAdapter[];
  family: ReceiverProbeFamily;
  scenarioFile: string;
  /** Each mode's auth settings, built on first use (the run's server broker). */
  trust: (mode: AuthMode) => Promise<{ server: ServerAuthSettings; client: ClientAuthSettings }>;
  runDir: string;
  baseline?: Baseline;
}

/**
 * One test per HTTP receiver probe of the family per server adapter with a `lifecycleServer` and
 * configured mode, named `<server> <mode> › receiver/<probe>`. Each (server, mode) gets a fresh server of its
 * own, started only when one of its probes is selected, and the probes run once, in order.
 */
export function defineReceiverProbeSuite(options: ReceiverProbeSuiteOptions): void {
  if (!options.config.transports.includes('http')) return;
  const project = options.family.suite;
  for (const adapter of options.adapters) {
    if (!adapter.manifest.lifecycleServer) continue;
    for (const mode of options.config.auth) {
      const label = `${adapter.name} ${mode}`;
      describe(label, () => {
        const unsupported = adapter.manifest.auth !== undefined && !adapter.manifest.auth.includes(mode)
          ? `unsupported: adapter "${adapter.name}" does not implement auth mode "${mode}" (interop/adapter.json auth)`
          : undefined;
        let results: Promise<Record<string, string | undefined> | { error: string }> | undefined;
        let server: ServerHandle | undefined;
        // eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
        beforeAll(({}, suite) => {
          const selected = ((suite as unknown as { tasks?: Array<{ mode: string }> }).tasks ?? []).some((task) => task.mode === 'run');
          if (!selected || unsupported) return;
          results = (async () => {
            const trust = await options.trust(mode);
            try {
              server = await startLifecycleServer({
                adapter,
                suite: options.family.suite,
                auth: mode,
                authSettings: { ...trust.server },
                scenarioFile: options.scenarioFile,
                schemaDir: options.config.schemas,
                workDir: options.runDir,
                startupMs: options.config.watchdogs.startupMs,
              });
            } catch (error) {
              if (error instanceof ServerStartError) return { error: `[${error.stage}/${error.kind}] (server) ${error.message}` };
              throw error;
            }
            return options.family.run(server, trust.client);
          })();
        });
        afterAll(async () => {
          if (server) await stopHttpServer(server);
        });
        test.for(options.family.probes.map((probe) => probe.name))('receiver/%s', async (name, context) => {
          const probe = options.family.probes.find((entry) => entry.name === name)!;
          context.task.meta.ahpProbe = { project, server: adapter.name, auth: mode, probe: name, label: probe.label };
          if (unsupported) {
            context.skip(unsupported);
            return;
          }
          const outcome = await results!;
          const problem = (outcome as Record<string, string | undefined>)[name];
          const failure =
            'error' in outcome
              ? `${label} › receiver/${name}\nthe probe server could not start:\n  ${outcome.error}`
              : problem !== undefined
                ? `${label} › receiver/${name}\nserver fault: server "${adapter.name}": ${problem}`
                : undefined;
          await finishTest(context, options.baseline, { project, group: label, id: `receiver/${name}` }, failure);
        });
      });
    }
  }
}
