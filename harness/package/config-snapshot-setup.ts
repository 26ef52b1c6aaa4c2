// The first global setup of every project ahpConformance() adds to an SDK's vitest config: it turns
// the SDK's config file (AHP_CONFIG, set by the helper) into the JSON snapshot the harness reads,
// once per vitest process. The test workers are started after it and inherit the variable.

import { readUserConfig, writeConfigSnapshot } from './config-snapshot.ts';

/** The SDK's own config file, before this setup replaced AHP_CONFIG with its snapshot. */
const SOURCE = 'AHP_CONFIG_SOURCE';

export default async function setup(): Promise<void> {
  const file = process.env.AHP_CONFIG;
  if (file === undefined || process.env[SOURCE] !== undefined) return;
  const snapshot = await writeConfigSnapshot(await readUserConfig(file), file);
  process.env[SOURCE] = file;
  process.env.AHP_CONFIG = snapshot.file;
}
