import { afterAll, beforeAll, describe, test } from 'vitest';

import type { Baseline } from '../baseline/baseline.ts';
import { finishTest } from '../baseline/finish-test.ts';

import { startHttpServer, stopHttpServer, ServerStartError } from '../adapters/http-server-pool.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import { UPLOAD_TOKEN } from '../auth/constants.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { RECEIVER_PROBES, runReceiverProbes, type ReceiverProbeResults } from '../lifecycle/receiver-probes.ts';
import type { LifecycleScenario } from '../lifecycle/scenario-types.ts';

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

export interface ReceiverProbeSuiteOptions {
  config: ResolvedConfig;
  adapters: LoadedAdapter[];
  rows: LifecycleScenario[];
  scenarioFile: string;
  /** Each mode's auth settings, built on first use (the run's server broker). */
  trust: (mode: AuthMode) => Promise<{ server: ServerAuthSettings; client: ClientAuthSettings }>;
  runDir: string;
  baseline?: Baseline;
}

/**
 * One test per HTTP receiver probe (LIFECYCLE-RULES §9) per lifecycle server adapter and configured
 * mode, named `<server> <mode> › receiver/<probe>`. Each (server, mode) gets a fresh server of its
 * own, started only when one of its probes is selected, and the probes run once, in order.
 */
export function defineReceiverProbeSuite(options: ReceiverProbeSuiteOptions): void {
  if (!options.config.transports.includes('http')) return;
  for (const adapter of options.adapters) {
    if (!adapter.manifest.lifecycleServer) continue;
    for (const mode of options.config.auth) {
      const label = `${adapter.name} ${mode}`;
      describe(label, () => {
        const unsupported = adapter.manifest.auth !== undefined && !adapter.manifest.auth.includes(mode)
          ? `unsupported: adapter "${adapter.name}" does not implement auth mode "${mode}" (interop/adapter.json auth)`
          : undefined;
        let results: Promise<ReceiverProbeResults | { error: string }> | undefined;
        let server: ServerHandle | undefined;
        // eslint-disable-next-line no-empty-pattern -- vitest requires a destructuring pattern for fixtures
        beforeAll(({}, suite) => {
          const selected = ((suite as unknown as { tasks?: Array<{ mode: string }> }).tasks ?? []).some((task) => task.mode === 'run');
          if (!selected || unsupported) return;
          results = (async () => {
            const trust = await options.trust(mode);
            try {
              server = await startHttpServer({
                adapter,
                auth: mode,
                authSettings: { ...trust.server },
                command: adapter.manifest.lifecycleServer,
                extraConfig: { suite: 'lifecycle', uploadAuth: { token: UPLOAD_TOKEN }, schemaDir: options.config.schemas },
                requireUploadEndpoint: true,
                scenarioFile: options.scenarioFile,
                schemaDir: options.config.schemas,
                workDir: options.runDir,
                startupMs: options.config.watchdogs.startupMs,
              });
            } catch (error) {
              if (error instanceof ServerStartError) return { error: `[${error.stage}/${error.kind}] (server) ${error.message}` };
              throw error;
            }
            return runReceiverProbes({ endpoint: server.endpoint, uploadEndpoint: server.uploadEndpoint!, clientAuth: trust.client, rows: options.rows });
          })();
        });
        afterAll(async () => {
          if (server) await stopHttpServer(server);
        });
        test.for(RECEIVER_PROBES.map((probe) => probe.name))('receiver/%s', async (name, context) => {
          const probe = RECEIVER_PROBES.find((entry) => entry.name === name)!;
          context.task.meta.ahpProbe = { project: 'lifecycle', server: adapter.name, auth: mode, probe: name, label: probe.label };
          if (unsupported) {
            context.skip(unsupported);
            return;
          }
          const outcome = await results!;
          const problem = (outcome as ReceiverProbeResults)[name];
          const failure =
            'error' in outcome
              ? `${label} › receiver/${name}\nthe probe server could not start:\n  ${outcome.error}`
              : problem !== undefined
                ? `${label} › receiver/${name}\nserver fault: server "${adapter.name}": ${problem}`
                : undefined;
          await finishTest(context, options.baseline, { project: 'lifecycle', group: label, id: `receiver/${name}` }, failure);
        });
      });
    }
  }
}
