// The CLI's flags as data: the parser, `--help`, the GitHub Action's inputs (action.yml) and their
// self-test all read this one table, so a flag cannot be documented, parsed or mapped differently.

export interface FlagSpec {
  /** Long name without dashes. */
  name: string;
  /** Other spellings, e.g. `project` for `suite`. */
  aliases?: readonly string[];
  short?: string;
  /** `list` flags may repeat and take comma-separated values; `pair` ones are `NAME=VALUE`. */
  kind: 'boolean' | 'string' | 'list' | 'pair';
  /** Shown in --help: the value's placeholder. */
  value?: string;
  help: string;
}

export const FLAGS: readonly FlagSpec[] = [
  { name: 'config', kind: 'string', value: 'FILE', help: 'config file (.ts, .mjs or .json); default ./ahp.config.{ts,mjs,json} when present, else none' },
  { name: 'suite', aliases: ['project'], kind: 'list', value: 'NAME', help: 'suites to run: core, lifecycle, catalogue, isolation, elicitation, compaction, auth (default: every suite the adapter.json has commands for, or whose commands sit at its conventional location in the protocol)' },
  { name: 'transport', kind: 'list', value: 'NAME', help: 'transports: http, stdio (default both)' },
  { name: 'auth', kind: 'list', value: 'MODE', help: 'auth modes: none, bearer, oauth, mtls, workload (default all)' },
  { name: 'adapter', kind: 'pair', value: 'NAME=DIR', help: 'another SDK to pair with (its DIR holds interop/adapter.json); repeatable' },
  { name: 'scenarios', kind: 'pair', value: 'SUITE=FILE', help: "a suite's scenario file instead of ours, e.g. core=../protocol/scenarios.json; repeatable" },
  { name: 'schemas', kind: 'string', value: 'DIR', help: 'directory of draft JSON Schemas laid out like the canonical schema/draft (default ours)' },
  { name: 'baseline', kind: 'string', value: 'FILE', help: 'known-failure baseline; a listed row that passes fails the run as stale' },
  { name: 'update-baseline', kind: 'boolean', help: 'rewrite the baseline file from this run instead of judging it' },
  { name: 'blind', kind: 'boolean', help: 'blind mode: clients get decoy expectations and opaque scenario ids' },
  { name: 'reports', kind: 'string', value: 'DIR', help: 'where reports/<suite>.json and the matrix summaries go (default ./reports)' },
  { name: 'shard', kind: 'string', value: 'I/N', help: "run shard I of N (vitest's --shard); merge the machines' reports afterwards" },
  { name: 'reporter', kind: 'list', value: 'NAME', help: "vitest reporters (default, json, junit, blob, ...); the matrix reports are written whatever this says" },
  { name: 'merge-reports', kind: 'string', value: 'DIR', help: "merge the blob reports of sharded runs (--reporter blob) in DIR into one report and the matrix summaries, running nothing" },
  { name: 'outputFile', kind: 'string', value: 'FILE', help: "where a file-writing reporter (json, junit) writes, as vitest's --outputFile" },
  { name: 'testNamePattern', short: 't', kind: 'string', value: 'PATTERN', help: "only tests whose name matches, e.g. -t 'python→reference http/none'" },
  { name: 'watch', kind: 'boolean', help: 'watch mode: rerun on edits, restarting an adapter whose files changed' },
  { name: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
];

/** The inputs of action.yml and the flag each one becomes, one to one. */
export const ACTION_INPUTS: Readonly<Record<string, string>> = {
  config: 'config',
  suites: 'suite',
  transports: 'transport',
  auth: 'auth',
  adapters: 'adapter',
  scenarios: 'scenarios',
  schemas: 'schemas',
  baseline: 'baseline',
  'update-baseline': 'update-baseline',
  blind: 'blind',
  reports: 'reports',
  shard: 'shard',
  reporter: 'reporter',
  'output-file': 'outputFile',
  'merge-reports': 'merge-reports',
  'test-name-pattern': 'testNamePattern',
};

/** The action's inputs that are not flags: how it installs and runs the CLI, and what it uploads. */
export const ACTION_SETTINGS = ['version', 'node-version', 'working-directory', 'artifact-name'] as const;

export function helpText(): string {
  const lines = [
    'usage: ahp-conformance [flags]        test the SDK in this folder (interop/adapter.json)',
    '       ahp-conformance init [--json]  write a commented ahp.config.ts (.json for non-JS repos)',
    '',
    'With no config, the SDK is paired with the embedded reference adapter both ways and with itself,',
    'over every transport and auth mode, in every suite its adapter.json has commands for.',
    'The exit code is vitest\'s. Flags:',
    '',
  ];
  for (const flag of FLAGS) {
    const names = [...(flag.short ? [`-${flag.short}`] : []), `--${flag.name}`, ...(flag.aliases ?? []).map((alias) => `--${alias}`)].join(', ');
    lines.push(`  ${`${names}${flag.value ? ` ${flag.value}` : ''}`.padEnd(34)} ${flag.help}`);
  }
  return `${lines.join('\n')}\n`;
}
