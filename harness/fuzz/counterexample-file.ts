// Writes what a fuzz failure leaves behind, in the central format — lint-clean for the closed format,
// so it can be replayed, attached to an SDK bug report, or promoted into the generated fixtures — plus,
// for a process pairing, a replay config next to it:
//
//   <dir>/<server>-to-<client>-<transport>-<hash>.json          a shrunk disagreement: {version:1, scenarios:[{id:"fuzz-<hash>", ...}]}
//   <dir>/<server>-to-<client>-<transport>-refused-<hash>.json  the smallest scenario set the adapter refused (refusal-evidence.ts)
//   <dir>/<server>-to-<client>-<transport>-host-limited-<hash>.json  rows the client failed without a protocol-level outcome
//   <dir>/<server>-to-<client>-<transport>-undefined-<hash>.json  rows whose difference only an input the protocol leaves undefined decides
//   <dir>/<name>.config.json                        AHP_CONFIG for `npx vitest run --project core`
//
// `<dir>` is AHP_COUNTEREXAMPLE_DIR when set, else fixtures/counterexamples (kept out of git by the
// .gitignore there). The expectation is always the oracle's, never the adapter's; every description
// names the generation profile (and host envelope) the rows came from.

import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { projectRoot } from '../config/load-config.ts';
import { sha256Hex } from '../protocol/sha256-hex.ts';
import { serializeScenarioFile } from '../scenarios/load-scenarios.ts';
import type { Scenario, ScenarioFile } from '../scenarios/types.ts';
import { materializeCase, type FuzzCase } from './case-arbitrary.ts';
import { describeEnvelope, type FuzzProfile } from './host-envelope.ts';
import { fuzzScenario, type OracleValidators } from './scenario-rows.ts';
import type { FuzzTarget } from './targets.ts';

export const DEFAULT_COUNTEREXAMPLE_DIR = path.join(projectRoot(), 'fixtures', 'counterexamples');

/** Where counterexamples go: `AHP_COUNTEREXAMPLE_DIR` (absolute, or relative to the cwd), else fixtures/counterexamples. */
export function counterexampleDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.AHP_COUNTEREXAMPLE_DIR?.trim();
  return configured ? path.resolve(process.cwd(), configured) : DEFAULT_COUNTEREXAMPLE_DIR;
}

export interface CounterexampleInfo {
  target: FuzzTarget;
  seed: number;
  /** fast-check path of the failing batch (property run). */
  path: string;
  /** The verifier's reason for the shrunk case (one line per difference). */
  reason: string;
  /** The generation profile the case came from (default wide). */
  profile?: FuzzProfile;
}

export interface WrittenCounterexample {
  file: string;
  /** Replay config (process pairings only). */
  configFile?: string;
  scenario: Scenario;
}

/** Stable scenario id of a case: a hash of its request and response under a fixed placeholder id. */
export function counterexampleHash(fuzz: FuzzCase): string {
  const { request, response } = materializeCase(fuzz, 'fuzz-case');
  return sha256Hex(JSON.stringify({ request, response })).slice(0, 12);
}

export function writeCounterexample(
  dir: string,
  fuzz: FuzzCase,
  info: CounterexampleInfo,
  validators: OracleValidators,
): WrittenCounterexample {
  const hash = counterexampleHash(fuzz);
  const description =
    `Counterexample found by differential fuzzing against ${info.target.label} ` +
    `(AHP_FUZZ_SEED=${info.seed}, fast-check path ${JSON.stringify(info.path)}): ${oneLine(info.reason)}. ` +
    `${profileSentence(info.profile)} The expectation is the oracle's.`;
  const scenario = fuzzScenario(fuzz, `fuzz-${hash}`, validators, description);
  const written = writeScenarioSet(dir, `${info.target.pairing}-${hash}`, [scenario], info.target);
  return { ...written, scenario };
}

/** "Generated in the … profile …." for descriptions. */
export function profileSentence(profile: FuzzProfile | undefined): string {
  return profile?.name === 'host'
    ? `Generated in the host profile, inside the host envelope ${describeEnvelope(profile.envelope)}.`
    : 'Generated in the wide profile (unconstrained requests).';
}

/** `scenario` with `description` in the generated key order (id, description, request, ...). */
export function describedRow(scenario: Scenario, description: string): Scenario {
  const { id, description: previous, ...rest } = scenario;
  void previous;
  return { id, description, ...rest } as Scenario;
}

/** A stable short hash of some rows' requests and responses (their ids included). */
export function scenariosHash(scenarios: Scenario[]): string {
  const content = scenarios.map((s) => ({ request: s.request, response: s.response }));
  return sha256Hex(JSON.stringify(content)).slice(0, 12);
}

/** Writes `<dir>/<name>.json` with `scenarios` and, for a process pairing, `<dir>/<name>.config.json`. */
export function writeScenarioSet(dir: string, name: string, scenarios: Scenario[], target: FuzzTarget): { file: string; configFile?: string } {
  mkdirSync(dir, { recursive: true });
  const base = path.join(dir, name);
  const file = `${base}.json`;
  writeAtomic(file, serializeScenarioFile({ version: 1, scenarios } satisfies ScenarioFile));

  let configFile: string | undefined;
  const replay = target.replay;
  if (replay) {
    configFile = `${base}.config.json`;
    const adapters = [replay.server, replay.client]
      .filter((adapter, index, all) => all.findIndex((other) => other.name === adapter.name) === index)
      .map((adapter) => ({ name: adapter.name, cwd: adapter.cwd, adapterFile: adapter.adapterFile }));
    const config = {
      schemas: replay.schemasDir,
      scenarios: { core: file },
      adapters,
      pairings: [{ server: replay.server.name, client: replay.client.name }],
      transports: [replay.transport],
      auth: ['none'],
      reports: path.join(dir, 'reports'),
    };
    writeAtomic(configFile, `${JSON.stringify(config, null, 2)}\n`);
  }
  return configFile === undefined ? { file } : { file, configFile };
}

/** A multi-line reason as one line for a description (bounded). */
export function oneLine(reason: string): string {
  const text = reason
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\s+/g, ' ');
  return text.length > 400 ? `${text.slice(0, 397)}...` : text || 'disagreement';
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
