// Turns the CLI's argv into a request, or a one-line UsageError naming the flag and what it expects.
// Pure: no files are read here (cli.ts does that).

import { parseArgs, type ParseArgsConfig } from 'node:util';

import { AUTH_MODES, TRANSPORTS, type AuthMode, type Transport } from '../config/define-config.ts';
import { FLAGS } from './cli-flags.ts';
import { isSuite, SUITES, type Suite } from './suite-projects.ts';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliRun {
  command: 'run';
  config?: string;
  suites?: Suite[];
  transports?: Transport[];
  auth?: AuthMode[];
  /** Peers by name → folder (as given, relative to the working directory). */
  adapters: Array<{ name: string; dir: string }>;
  scenarios: Record<string, string>;
  schemas?: string;
  baseline?: string;
  updateBaseline: boolean;
  blind: boolean;
  reports?: string;
  shard?: { index: number; count: number };
  reporters?: string[];
  outputFile?: string;
  mergeReports?: string;
  testNamePattern?: string;
  watch: boolean;
}

export type CliRequest = CliRun | { command: 'help' } | { command: 'init'; json: boolean };

type Parsed = Record<string, string | boolean | Array<string | boolean> | undefined>;

export function parseCliArgs(argv: readonly string[]): CliRequest {
  if (argv[0] === 'init') return parseInit(argv.slice(1));
  const parsed = parse(argv, parseOptions());
  if (parsed.help === true) return { command: 'help' };
  const list = (name: string): string[] | undefined => {
    const values = parsed[name];
    if (values === undefined) return undefined;
    return (Array.isArray(values) ? values : [values]).flatMap((value) => String(value).split(',')).map((value) => value.trim()).filter(Boolean);
  };
  const string = (name: string): string | undefined => {
    const value = parsed[name];
    if (value !== undefined && (typeof value !== 'string' || value === '')) throw new UsageError(`--${name}: expected a value`);
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T[] | undefined => {
    const values = list(name);
    for (const value of values ?? []) {
      if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name}: "${value}" is not one of ${allowed.join(', ')}`);
    }
    return values as T[] | undefined;
  };
  const suites = list('suite');
  for (const suite of suites ?? []) {
    if (!isSuite(suite)) throw new UsageError(`--suite: "${suite}" is not one of ${SUITES.join(', ')}`);
  }
  const run: CliRun = {
    command: 'run',
    adapters: pairs(parsed, 'adapter').map(([name, dir]) => ({ name, dir })),
    scenarios: Object.fromEntries(pairs(parsed, 'scenarios')),
    updateBaseline: parsed['update-baseline'] === true,
    blind: parsed.blind === true,
    watch: parsed.watch === true,
  };
  const optional: Partial<CliRun> = {
    config: string('config'),
    suites: suites as Suite[] | undefined,
    transports: oneOf('transport', TRANSPORTS),
    auth: oneOf('auth', AUTH_MODES),
    schemas: string('schemas'),
    baseline: string('baseline'),
    reports: string('reports'),
    shard: shard(string('shard')),
    reporters: list('reporter'),
    outputFile: string('outputFile'),
    mergeReports: string('merge-reports'),
    testNamePattern: string('testNamePattern'),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(run, { [key]: value });
  if (run.updateBaseline && run.baseline === undefined) throw new UsageError('--update-baseline: needs --baseline FILE (or baseline in the config) to know which file to rewrite');
  return run;
}

function parseInit(argv: readonly string[]): CliRequest {
  const parsed = parse(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (parsed.help === true) return { command: 'help' };
  return { command: 'init', json: parsed.json === true };
}

function parseOptions(): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const flag of FLAGS) {
    const type = flag.kind === 'boolean' ? 'boolean' : 'string';
    const multiple = flag.kind === 'list' || flag.kind === 'pair';
    for (const name of [flag.name, ...(flag.aliases ?? [])]) {
      options[name] = { type, multiple, ...(flag.short && name === flag.name ? { short: flag.short } : {}) };
    }
  }
  return options;
}

function parse(argv: readonly string[], options: NonNullable<ParseArgsConfig['options']>): Parsed {
  let values: Parsed;
  try {
    ({ values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }) as { values: Parsed });
  } catch (error) {
    // node's messages already name the flag ("Unknown option '--foo'"); keep only their first line.
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  // An alias (--project) and its flag (--suite) are one list.
  for (const flag of FLAGS) {
    for (const alias of flag.aliases ?? []) {
      const given = values[alias];
      if (given === undefined) continue;
      values[flag.name] = [...asArray(values[flag.name]), ...asArray(given)];
      delete values[alias];
    }
  }
  return values;
}

function asArray(value: Parsed[string]): Array<string | boolean> {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function pairs(parsed: Parsed, name: string): Array<[string, string]> {
  return asArray(parsed[name]).map((raw) => {
    const text = String(raw);
    const at = text.indexOf('=');
    if (at <= 0 || at === text.length - 1) throw new UsageError(`--${name}: expected NAME=VALUE, got "${text}"`);
    return [text.slice(0, at), text.slice(at + 1)];
  });
}

function shard(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count < 1 || index > count) throw new UsageError(`--shard: expected I/N with 1 <= I <= N, got "${value}"`);
  return { index, count };
}
