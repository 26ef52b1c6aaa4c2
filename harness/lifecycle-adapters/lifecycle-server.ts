// The one way a lifecycle receiver starts over HTTP, for a group's run and for the receiver probes
// alike: the adapter's `lifecycleServer` command, the lifecycle keys of its config, and a readiness
// file that must name the upload endpoint. A start that differed between the two would let a probe
// judge a server configured unlike the one the rows ran against.

import { startHttpServer } from '../adapters/http-server-pool.ts';
import type { LoadedAdapter, ServerHandle } from '../adapters/types.ts';
import { UPLOAD_TOKEN } from '../auth/constants.ts';
import type { AuthMode } from '../config/define-config.ts';

/** The lifecycle keys of a server config, over either transport. */
export function lifecycleServerConfig(suite: string, schemaDir: string): Record<string, unknown> {
  return { suite, uploadAuth: { token: UPLOAD_TOKEN }, schemaDir };
}

export interface LifecycleServerStart {
  adapter: LoadedAdapter;
  /** The lifecycle-adapter family whose rows it answers (`lifecycle`, `catalogue`). */
  suite: string;
  auth: AuthMode;
  /** The mode's server `auth` settings, merged after `mode`. */
  authSettings: Record<string, unknown>;
  scenarioFile: string;
  schemaDir: string;
  workDir: string;
  startupMs: number;
  /** Grace between SIGTERM and SIGKILL when stopping; the pool's default when absent. */
  graceMs?: number;
}

/** Starts the receiver; throws ServerStartError (adapters/http-server-pool.ts) when it cannot. */
export function startLifecycleServer(start: LifecycleServerStart): Promise<ServerHandle> {
  return startHttpServer({
    adapter: start.adapter,
    auth: start.auth,
    authSettings: start.authSettings,
    // The planner leaves adapters without `lifecycleServer` unsupported before any start.
    command: start.adapter.manifest.lifecycleServer,
    extraConfig: lifecycleServerConfig(start.suite, start.schemaDir),
    requireUploadEndpoint: true,
    scenarioFile: start.scenarioFile,
    schemaDir: start.schemaDir,
    workDir: start.workDir,
    startupMs: start.startupMs,
    ...(start.graceMs === undefined ? {} : { graceMs: start.graceMs }),
  });
}
