// The files and secrets of one compaction pair run (COMPACTION-RULES §2, §4, §8 step 1): a fresh
// work folder, the receivers' subscription config over every case of the file (so the probe's scope
// exists whatever the selection), an empty store, and one fresh event token and upload token per
// scope. The tokens reach the processes only through the environment (and the HTTP host's plan),
// never a report or a log: `secrets` is what every text shown is redacted with.

import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';

import { writePrivateJson } from '../../adapters/private-json.ts';
import type { CompactionCaseFile } from './case-types.ts';
import { subscriptionConfig } from './subscriptions.ts';

export interface PairFiles {
  workDir: string;
  storeDir: string;
  configPath: string;
  receiptsFile: string;
  /** The stdio recorder's spec and its instances folder. */
  recorderSpec: string;
  instancesDir: string;
  subscriptions: ReturnType<typeof subscriptionConfig>;
  /** scope → {token, uploadToken}. */
  credentials: Record<string, { token: string; uploadToken: string }>;
  /** AHP_COMPACTION_TOKENS and AHP_COMPACTION_UPLOAD_TOKENS. */
  tokenEnv: Record<string, string>;
  secrets: string[];
}

/** A token like Python's `secrets.token_urlsafe(24)`. */
function token(): string {
  return randomBytes(24).toString('base64url');
}

export function createPairFiles(runDir: string, label: string, file: CompactionCaseFile): PairFiles {
  const workDir = mkdtempSync(path.join(runDir, `compaction-${label.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60)}-`));
  const storeDir = path.join(workDir, 'bodies');
  mkdirSync(storeDir, { mode: 0o700 });
  const configPath = path.join(workDir, 'subscriptions.json');
  const subscriptions = subscriptionConfig(file.cases);
  writePrivateJson(configPath, subscriptions);
  const instancesDir = path.join(workDir, 'stdio-receivers');
  const recorderSpec = path.join(workDir, 'recorder.json');
  writePrivateJson(recorderSpec, { instancesDir });
  const credentials: PairFiles['credentials'] = {};
  for (const scope of Object.keys(subscriptions)) credentials[scope] = { token: token(), uploadToken: token() };
  const events = Object.fromEntries(Object.entries(credentials).map(([scope, c]) => [c.token, scope]));
  const uploads = Object.fromEntries(Object.entries(credentials).map(([scope, c]) => [c.uploadToken, scope]));
  return {
    workDir,
    storeDir,
    configPath,
    receiptsFile: path.join(storeDir, 'receipts.jsonl'),
    recorderSpec,
    instancesDir,
    subscriptions,
    credentials,
    tokenEnv: { AHP_COMPACTION_TOKENS: JSON.stringify(events), AHP_COMPACTION_UPLOAD_TOKENS: JSON.stringify(uploads) },
    secrets: Object.values(credentials).flatMap((c) => [c.token, c.uploadToken]),
  };
}
