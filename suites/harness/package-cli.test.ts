// The CLI's pure parts, from source: argv parsing (every flag, one-line errors naming the flag), what
// it tests in an SDK folder with no config (pairings, suites, flags over config), `init`'s files, and
// the one-to-one mapping of action.yml's inputs to the flags, with a broken action.yml it must catch.
// The installed package itself is exercised in package-install.test.ts.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, describe, expect, test } from 'vitest';

import type { UserConfig } from '../../harness/config/define-config.ts';
import { CONFIG_KEYS } from '../../harness/config/load-config.ts';

import { parseCliArgs, UsageError, type CliRun } from '../../harness/package/cli-args.ts';
import { FLAGS, helpText } from '../../harness/package/cli-flags.ts';
import { initConfig } from '../../harness/package/init.ts';
import { REFERENCE_CWD, REFERENCE_DIR } from '../../harness/package/reference-cwd.ts';
import { applyFlags, sdkInFolder, suitesFor, zeroConfig } from '../../harness/package/sdk-config.ts';
import { writeConfigSnapshot } from '../../harness/package/config-snapshot.ts';
import { reproduceCommand } from '../../harness/reporters/run-header.ts';
import { actionMappingProblems } from './support/action-mapping.ts';
import { PROJECT_ROOT } from './support/child-vitest-run.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ahp-cli-'));
  dirs.push(dir);
  return dir;
}

function sdkFolder(manifest: Record<string, unknown>): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'interop'));
  writeFileSync(path.join(dir, 'interop', 'adapter.json'), JSON.stringify(manifest));
  return dir;
}

function runOf(argv: string[]): CliRun {
  const request = parseCliArgs(argv);
  if (request.command !== 'run') throw new Error(`expected a run, got ${request.command}`);
  return request;
}

const PYTHON = { language: 'python', server: ['python3', 'sdk.py', 'server'], client: ['python3', 'sdk.py', 'client'] };

describe('parseCliArgs', () => {
  test('every flag, with lists, aliases, repeats and pairs', () => {
    const run = runOf([
      '--suite', 'core,lifecycle', '--project', 'auth', '--transport', 'http', '--auth', 'none', '--auth', 'bearer',
      '--adapter', 'go=../go-sdk', '--scenarios', 'core=canonical.json', '--schemas', 's', '--baseline', 'b.json',
      '--update-baseline', '--blind', '--reports', 'out', '--shard', '2/3', '--reporter', 'blob', '--outputFile', 'x.json',
      '-t', 'python→reference', '--config', 'ahp.config.json',
    ]);
    expect(run).toEqual({
      command: 'run',
      suites: ['core', 'lifecycle', 'auth'],
      transports: ['http'],
      auth: ['none', 'bearer'],
      adapters: [{ name: 'go', dir: '../go-sdk' }],
      scenarios: { core: 'canonical.json' },
      schemas: 's',
      baseline: 'b.json',
      updateBaseline: true,
      blind: true,
      reports: 'out',
      shard: { index: 2, count: 3 },
      reporters: ['blob'],
      outputFile: 'x.json',
      testNamePattern: 'python→reference',
      config: 'ahp.config.json',
      watch: false,
    });
    expect(runOf(['--watch']).watch).toBe(true);
    expect(parseCliArgs(['--help'])).toEqual({ command: 'help' });
    expect(parseCliArgs(['init', '--json'])).toEqual({ command: 'init', json: true });
  });

  test.each([
    [['--bogus'], "Unknown option '--bogus' (see --help)"],
    [['--transport', 'carrier'], '--transport: "carrier" is not one of http, stdio'],
    [['--auth', 'basic'], '--auth: "basic" is not one of none, bearer, oauth, mtls, workload'],
    [['--suite', 'fuzz'], '--suite: "fuzz" is not one of core, lifecycle, catalogue, isolation, elicitation, compaction, auth'],
    [['--adapter', 'go'], '--adapter: expected NAME=VALUE, got "go"'],
    [['--scenarios', '=x.json'], '--scenarios: expected NAME=VALUE, got "=x.json"'],
    [['--shard', '4/3'], '--shard: expected I/N with 1 <= I <= N, got "4/3"'],
    [['--update-baseline'], '--update-baseline: needs --baseline FILE (or baseline in the config) to know which file to rewrite'],
  ])('%j is a one-line error naming the flag', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(new UsageError(message));
  });

  test('--help documents every flag', () => {
    const help = helpText();
    for (const flag of FLAGS) expect(help, flag.name).toContain(`--${flag.name}`);
  });
});

describe('an SDK folder with no config', () => {
  test('pairs the SDK with the reference adapter both ways and with itself, named after its language', () => {
    const dir = sdkFolder(PYTHON);
    const config = zeroConfig(dir, sdkInFolder(dir));
    expect(config.adapters).toEqual([{ name: 'python', cwd: dir }, { name: 'reference', cwd: REFERENCE_DIR }]);
    expect(config.pairings).toEqual([
      { server: 'python', client: 'python' },
      { server: 'python', client: 'reference' },
      { server: 'reference', client: 'python' },
    ]);
    // No transports or auth: the config's defaults (every one of each) apply.
    expect(config.transports).toBeUndefined();
    expect(config.auth).toBeUndefined();
  });

  test('runs the suites its adapter.json has commands for', () => {
    expect(suitesFor(sdkInFolder(sdkFolder(PYTHON)))).toEqual(['core', 'auth']);
    const lifecycle = { ...PYTHON, lifecycleServer: ['python3', 'l.py', 'server'], lifecycleClient: ['python3', 'l.py', 'client'] };
    expect(suitesFor(sdkInFolder(sdkFolder(lifecycle)))).toEqual(['core', 'lifecycle', 'catalogue', 'isolation', 'auth']);
  });

  test('finds the elicitation and compaction commands where the protocol puts them, as SDKs ship them undeclared', () => {
    const folder = sdkFolder(PYTHON);
    writeFileSync(path.join(folder, 'interop', 'elicitation.py'), '');
    expect(suitesFor(sdkInFolder(folder))).toEqual(['core', 'elicitation', 'auth']);
    writeFileSync(path.join(folder, 'interop', 'compaction_wire.py'), '');
    expect(suitesFor(sdkInFolder(folder))).toEqual(['core', 'elicitation', 'compaction', 'auth']);
  });

  test('without interop/adapter.json, says where it looked and what to do', () => {
    const dir = tempDir();
    expect(() => sdkInFolder(dir)).toThrow(`${path.join(dir, 'interop', 'adapter.json')}: not found`);
  });

  test('flags override the config; peers are paired with the SDK both ways; flag paths are relative to the working directory', () => {
    const dir = sdkFolder(PYTHON);
    const config = applyFlags(zeroConfig(dir, sdkInFolder(dir)), runOf(['--transport', 'http', '--adapter', 'go=../go', '--scenarios', 'core=rows.json', '--blind']), dir);
    expect(config.transports).toEqual(['http']);
    expect(config.blind).toBe(true);
    expect(config.adapters?.at(-1)).toEqual({ name: 'go', cwd: path.resolve(dir, '../go') });
    expect(config.pairings?.slice(3)).toEqual([{ server: 'python', client: 'go' }, { server: 'go', client: 'python' }]);
    expect(config.scenarios?.core).toBe(path.join(dir, 'rows.json'));
    expect(config.scenarios?.lifecycle).toMatch(/fixtures[\\/]lifecycle-scenarios\.json$/);
  });

  test('a bad config field is a ConfigError naming the file and the field, before anything runs', async () => {
    const dir = sdkFolder(PYTHON);
    const file = path.join(dir, 'ahp.config.json');
    await expect(writeConfigSnapshot({ ...zeroConfig(dir, sdkInFolder(dir)), parallelism: 0 }, file)).rejects.toThrow(`${file}: parallelism:`);
  });

  test('the snapshot is absolute, with reports beside the config, and names the reference adapter by its installed folder', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ahp.config.json');
    const { file: snapshot } = await writeConfigSnapshot({ adapters: [{ name: 'reference', cwd: REFERENCE_CWD }] }, file);
    const written = JSON.parse(readFileSync(snapshot, 'utf8')) as { adapters: Array<{ cwd: string }>; reports: string };
    // Removed on process exit, which a vitest worker never reaches: the test removes its own.
    rmSync(path.dirname(snapshot), { recursive: true, force: true });
    expect(written.adapters[0]!.cwd).toBe(REFERENCE_DIR);
    expect(written.reports).toBe(path.join(dir, 'reports'));
  });
});

test('the snapshot carries every config key, so a key added to the config cannot be dropped on the way', async () => {
  const dir = sdkFolder(PYTHON);
  mkdirSync(path.join(dir, 'previous'));
  const every: Required<UserConfig> = {
    ...(zeroConfig(dir, sdkInFolder(dir)) as Required<Pick<UserConfig, 'adapters' | 'pairings' | 'reports'>>),
    schemas: path.join(PROJECT_ROOT, 'schemas'),
    scenarios: { core: 'rows.json' },
    transports: ['http'],
    auth: ['none'],
    watchdogs: { startupMs: 1000, runMs: 2000 },
    parallelism: 1,
    baseline: 'baseline.json',
    blind: true,
    compare: 'previous',
    elicitation: { binding: 'inline' },
  };
  const { file } = await writeConfigSnapshot(every, path.join(dir, 'ahp.config.json'));
  const keys = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object);
  rmSync(path.dirname(file), { recursive: true, force: true });
  expect(keys.sort()).toEqual([...CONFIG_KEYS].sort());
});

test("the page's reproduce command under the package is its own call, never the snapshot's path", () => {
  const env = { AHP_CONFIG: '/tmp/ahp-config-x/config.json', AHP_CONFIG_SOURCE: '/sdk', AHP_PACKAGE_CLI: '1', AHP_BLIND: '1' };
  expect(reproduceCommand(['node', '/x/bin/ahp-conformance.mjs', '--suite', 'core', '-t', 'python→reference'], env)).toBe("AHP_BLIND=1 npx ahp-conformance --suite core -t 'python→reference'");
  const helper = { AHP_CONFIG: '/tmp/ahp-config-y/config.json', AHP_CONFIG_SOURCE: '/sdk/ahp.config.ts' };
  expect(reproduceCommand(['node', '/x/vitest.mjs', 'run', '--project', 'ahp:core'], helper)).toBe('npx vitest run --project ahp:core');
});

describe('init', () => {
  test('a non-JS SDK gets ahp.config.json listing it, and the next command', () => {
    const dir = sdkFolder(PYTHON);
    const result = initConfig(dir, { json: false });
    expect(result.file).toBe(path.join(dir, 'ahp.config.json'));
    expect(result.message).toMatch(/\nnext: npx ahp-conformance\n$/);
    const written = JSON.parse(readFileSync(result.file, 'utf8')) as { adapters: unknown[] };
    expect(written.adapters).toEqual([{ name: 'python', cwd: '.' }, { name: 'reference', cwd: REFERENCE_CWD }]);
  });

  test('a JS repo gets a commented ahp.config.ts; an existing config is never overwritten', () => {
    const dir = sdkFolder(PYTHON);
    writeFileSync(path.join(dir, 'package.json'), '{}');
    const result = initConfig(dir, { json: false });
    const text = readFileSync(result.file, 'utf8');
    expect(path.basename(result.file)).toBe('ahp.config.ts');
    expect(text).toContain("import { defineConfig } from 'ahp-conformance';");
    expect(text).toContain("{ name: 'python', cwd: '.' },");
    expect(() => initConfig(dir, { json: true })).toThrow(`${result.file}: already exists`);
  });
});

describe('action.yml', () => {
  const actionYml = readFileSync(path.join(PROJECT_ROOT, 'action.yml'), 'utf8');

  test('maps its inputs one to one to the CLI flags', () => {
    expect(actionMappingProblems(actionYml)).toEqual([]);
  });

  test.each([
    ['an input passed to another flag', (text: string) => text.replace('each --transport "$IN_TRANSPORTS"', 'each --auth "$IN_TRANSPORTS"'), 'inputs.transports is passed to --auth, expected --transport'],
    ['a list input passed as one value', (text: string) => text.replace('each --suite "$IN_SUITES"', 'one --suite "$IN_SUITES"'), 'inputs.suites is passed with one, expected each (a list flag)'],
    ['an input never passed', (text: string) => text.replace('        yes --blind "$IN_BLIND"\n', ''), 'expected exactly one line passing "$IN_BLIND" to --blind, found 0'],
    ['an input of no flag', (text: string) => text.replace('inputs:\n', "inputs:\n  colour: { description: 'x', required: false, default: '' }\n"), 'inputs.colour: not a mapped flag'],
    ['an env wired to another input', (text: string) => text.replace('IN_SHARD: ${{ inputs.shard }}', 'IN_SHARD: ${{ inputs.reports }}'), 'env IN_SHARD: expected ${{ inputs.shard }}'],
  ])('catches %s', (_name, breakIt, problem) => {
    const broken = breakIt(actionYml);
    expect(broken).not.toBe(actionYml);
    expect(actionMappingProblems(broken).join('\n')).toContain(problem);
  });
});
