// What a family's suite needs to run its groups through the lifecycle adapters (lifecycle,
// catalogue, isolation): the run's trust from the server broker, the runner built from the config
// and the run's folders, and the bound one run may take.

import path from 'node:path';
import { inject } from 'vitest';

import type { ClientAuthSettings, ServerAuthSettings } from '../auth/auth-settings.ts';
import type { AuthMode } from '../config/define-config.ts';
import type { ResolvedConfig } from '../config/load-config.ts';
import { BrokerClient } from '../setup/broker-client.ts';
import type { LifecycleSuite, ScriptScenario } from './run.ts';
import { LifecycleRunner, type ScriptVerifier } from './runner.ts';

export type SuiteTrust = (mode: AuthMode) => Promise<{ server: ServerAuthSettings; client: ClientAuthSettings }>;

/** Each mode's auth settings from the run's server broker, built on first use. */
export function brokerTrust(): SuiteTrust {
  const broker = new BrokerClient(inject('ahpBroker'), 60_000);
  return (mode) => broker.trust(mode);
}

/** The suite's runner over the config's schemas and watchdogs, the run's temp folder and kept-logs folder. */
export function suiteRunner<Row extends ScriptScenario>(config: ResolvedConfig, suite: LifecycleSuite, verify: ScriptVerifier<Row>, trust: SuiteTrust): LifecycleRunner<Row> {
  return new LifecycleRunner<Row>({
    suite,
    schemasDir: config.schemas,
    verify,
    trust,
    watchdogs: config.watchdogs,
    runDir: inject('ahpRunDir'),
    logDir: path.join(config.reports, 'logs'),
  });
}

/**
 * The bound of one group run through the lifecycle adapters: two starts (the run's own server, and a
 * stdio client's), two run watchdogs (the client's, the receipts after it), and a margin.
 */
export function scriptRunBoundMs(config: ResolvedConfig): number {
  return config.watchdogs.startupMs * 2 + config.watchdogs.runMs * 2 + 30_000;
}
