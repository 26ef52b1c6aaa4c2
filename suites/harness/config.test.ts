import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { ConfigError, loadConfig, projectRoot, type ResolvedConfig } from '../../harness/config/load-config.ts';

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-config-test-'));
});

afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** Writes `content` (JSON-encoded unless a string) to `<tmp>/<name>` and returns the absolute path. */
function write(name: string, content: unknown): string {
  const file = path.join(tmp, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

async function loadError(file: string): Promise<ConfigError> {
  const error = await loadConfig({ file, env: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('projectRoot', () => {
  test('is the folder holding package.json and adapters.config.ts', () => {
    const root = projectRoot();
    expect(path.isAbsolute(root)).toBe(true);
    expect(existsSync(path.join(root, 'package.json'))).toBe(true);
    expect(root).toBe(path.resolve(import.meta.dirname, '..', '..'));
  });
});

describe('loadConfig: the default config', () => {
  test('loads the repository adapters.config.ts with absolute paths', async () => {
    const root = projectRoot();
    const config = await loadConfig({ env: {} });
    expect(config).toEqual<ResolvedConfig>({
      file: path.join(root, 'adapters.config.ts'),
      dir: root,
      schemas: path.join(root, 'schemas'),
      scenarios: {
        core: path.join(root, 'fixtures', 'scenarios.json'),
        lifecycle: path.join(root, 'fixtures', 'lifecycle-scenarios.json'),
        catalogue: path.join(root, 'fixtures', 'catalogue-scenarios.json'),
        compaction: path.join(root, 'fixtures', 'compaction.json'),
      },
      adapters: [
        {
          name: 'reference',
          cwd: path.join(root, 'adapters', 'reference'),
          adapterFile: path.join(root, 'adapters', 'reference', 'interop', 'adapter.json'),
        },
      ],
      transports: ['http', 'stdio'],
      auth: ['none', 'bearer', 'oauth', 'mtls', 'workload'],
      pairings: null,
      watchdogs: { startupMs: 20_000, runMs: 120_000 },
      parallelism: 2,
      reports: path.join(root, 'reports'),
      baseline: null,
      blind: false,
      compare: null,
      elicitation: { binding: 'upload' },
    });
  });

  test('an empty AHP_CONFIG is ignored (the default file is used)', async () => {
    const config = await loadConfig({ env: { AHP_CONFIG: '' } });
    expect(config.file).toBe(path.join(projectRoot(), 'adapters.config.ts'));
  });

  test('the result is plain serialisable data (vitest provide() can carry it)', async () => {
    const config = await loadConfig({ env: {} });
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });
});

describe('loadConfig: JSON config selected by AHP_CONFIG', () => {
  test('relative paths resolve against the config file folder, not the cwd', async () => {
    mkdirSync(path.join(tmp, 'conf', 'my-schemas'), { recursive: true });
    const file = write('conf/ahp.json', {
      schemas: 'my-schemas',
      scenarios: { core: '../scen/core.json', lifecycle: '/abs/lifecycle.json' },
      adapters: [
        { name: 'python', cwd: '../sdks/python' },
        { name: 'go', cwd: '../sdks/go', adapterFile: 'adapters/go.json' },
      ],
      transports: ['stdio'],
      auth: ['none', 'bearer'],
      pairings: [{ server: 'python', client: 'go' }],
      watchdogs: { runMs: 5000 },
      parallelism: 4,
      reports: '../out',
      baseline: null,
      blind: false,
      compare: null,
      elicitation: { binding: 'upload' },
    });
    const config = await loadConfig({ env: { AHP_CONFIG: file } });
    const conf = path.join(tmp, 'conf');
    expect(config).toEqual<ResolvedConfig>({
      file,
      dir: conf,
      schemas: path.join(conf, 'my-schemas'),
      scenarios: { core: path.join(tmp, 'scen', 'core.json'), lifecycle: path.resolve('/abs/lifecycle.json') },
      adapters: [
        {
          name: 'python',
          cwd: path.join(tmp, 'sdks', 'python'),
          adapterFile: path.join(tmp, 'sdks', 'python', 'interop', 'adapter.json'),
        },
        { name: 'go', cwd: path.join(tmp, 'sdks', 'go'), adapterFile: path.join(conf, 'adapters', 'go.json') },
      ],
      transports: ['stdio'],
      auth: ['none', 'bearer'],
      pairings: [{ server: 'python', client: 'go' }],
      watchdogs: { startupMs: 20_000, runMs: 5000 },
      parallelism: 4,
      reports: path.join(tmp, 'out'),
      baseline: null,
      blind: false,
      compare: null,
      elicitation: { binding: 'upload' },
    });
  });

  test('an empty JSON object gets every default', async () => {
    const file = write('empty.json', {});
    const root = projectRoot();
    const config = await loadConfig({ env: { AHP_CONFIG: file } });
    expect(config).toEqual<ResolvedConfig>({
      file,
      dir: tmp,
      schemas: path.join(root, 'schemas'),
      scenarios: {
        core: path.join(root, 'fixtures', 'scenarios.json'),
        lifecycle: path.join(root, 'fixtures', 'lifecycle-scenarios.json'),
        catalogue: path.join(root, 'fixtures', 'catalogue-scenarios.json'),
        compaction: path.join(root, 'fixtures', 'compaction.json'),
      },
      adapters: [],
      transports: ['http', 'stdio'],
      auth: ['none'],
      pairings: null,
      watchdogs: { startupMs: 20_000, runMs: 120_000 },
      parallelism: 2,
      reports: path.join(root, 'reports'),
      baseline: null,
      blind: false,
      compare: null,
      elicitation: { binding: 'upload' },
    });
  });

  test('a relative AHP_CONFIG resolves against process.cwd()', async () => {
    const file = write('rel.json', { parallelism: 3 });
    const relative = path.relative(process.cwd(), file);
    expect(path.isAbsolute(relative)).toBe(false);
    const config = await loadConfig({ env: { AHP_CONFIG: relative } });
    expect(config.file).toBe(file);
    expect(config.parallelism).toBe(3);
  });

  test('options.file wins over AHP_CONFIG', async () => {
    const chosen = write('chosen.json', { parallelism: 7 });
    const ignored = write('ignored.json', { parallelism: 9 });
    const config = await loadConfig({ file: chosen, env: { AHP_CONFIG: ignored } });
    expect(config.file).toBe(chosen);
    expect(config.parallelism).toBe(7);
  });

  test('scenario file paths are not checked for existence here', async () => {
    const file = write('c.json', { scenarios: { core: 'does/not/exist.json' } });
    const config = await loadConfig({ file, env: {} });
    expect(config.scenarios.core).toBe(path.join(tmp, 'does', 'not', 'exist.json'));
  });

  test('pairings: null means the default matrix', async () => {
    const file = write('c.json', { pairings: null });
    expect((await loadConfig({ file, env: {} })).pairings).toBeNull();
  });

  test('a UTF-8 byte order mark is tolerated', async () => {
    const file = write('bom.json', `\uFEFF${JSON.stringify({ parallelism: 5 })}`);
    expect((await loadConfig({ file, env: {} })).parallelism).toBe(5);
  });
});

describe('loadConfig: module configs', () => {
  test('an .mjs default export, with paths relative to its folder', async () => {
    mkdirSync(path.join(tmp, 'mod', 'schemas'), { recursive: true });
    const file = write(
      'mod/ahp.config.mjs',
      `export default {
  schemas: 'schemas',
  adapters: [{ name: 'rust', cwd: '../rust-sdk' }],
  auth: ['mtls'],
};
`,
    );
    const config = await loadConfig({ env: { AHP_CONFIG: file } });
    expect(config.file).toBe(file);
    expect(config.schemas).toBe(path.join(tmp, 'mod', 'schemas'));
    expect(config.adapters).toEqual([
      {
        name: 'rust',
        cwd: path.join(tmp, 'rust-sdk'),
        adapterFile: path.join(tmp, 'rust-sdk', 'interop', 'adapter.json'),
      },
    ]);
    expect(config.auth).toEqual(['mtls']);
  });

  test('a .ts config using defineConfig', async () => {
    const defineConfigUrl = new URL('../../harness/config/define-config.ts', import.meta.url).href;
    const file = write(
      'ahp.config.ts',
      `import { defineConfig } from ${JSON.stringify(defineConfigUrl)};
export default defineConfig({ adapters: [{ name: 'ts', cwd: 'sdk' }], transports: ['http'] });
`,
    );
    const config = await loadConfig({ file, env: {} });
    expect(config.adapters[0]?.cwd).toBe(path.join(tmp, 'sdk'));
    expect(config.transports).toEqual(['http']);
  });

  test('a module without a default export is rejected', async () => {
    const file = write('named.mjs', 'export const config = {};\n');
    const error = await loadError(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/expected a default export/);
  });

  test('a module that throws while loading is reported with the file', async () => {
    const file = write('throws.mjs', "throw new Error('boom in config');\n");
    const error = await loadError(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/cannot import config module: boom in config/);
  });
});

describe('loadConfig: file-level errors', () => {
  test('invalid JSON names the file and the position', async () => {
    const file = write('broken.json', '{\n  "parallelism": 2,\n  "auth": [oops]\n}\n');
    const error = await loadError(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/invalid JSON at line 3, column 12 \(offset 33\): expected a JSON value, got "o"/);
  });

  test('an unknown extension is rejected with the supported ones', async () => {
    const file = write('ahp.yaml', 'adapters: []\n');
    const error = await loadError(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/unsupported config file extension "\.yaml"; expected one of \.json, \.ts, \.mts, \.mjs, \.js/);
  });

  test('a missing file is reported', async () => {
    const file = path.join(tmp, 'nope.json');
    const error = await loadError(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/config file not found/);
  });

  test('the top level must be an object', async () => {
    const file = write('array.json', []);
    const error = await loadError(file);
    expect(error.message).toBe(
      `${file}: expected a config object (see defineConfig in harness/config/define-config.ts), got [] (an empty array)`,
    );
  });
});

describe('loadConfig: field validation', () => {
  const base = {
    schemas: 'schemas',
    adapters: [
      { name: 'alpha', cwd: 'alpha' },
      { name: 'beta', cwd: 'beta' },
    ],
  };

  // [title, overrides, field, expectation]
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['unknown top-level key', { adaptors: [] }, 'adaptors', /unknown key; expected only schemas, scenarios, adapters, transports, auth, pairings, watchdogs, parallelism/],
    ['schemas of the wrong type', { schemas: 42 }, 'schemas', /expected a non-empty string, got number 42/],
    ['schemas empty', { schemas: '' }, 'schemas', /expected a non-empty string, got "" \(an empty string\)/],
    ['schemas directory missing', { schemas: 'no-such-dir' }, 'schemas', /expected an existing directory of JSON Schemas, but .*no-such-dir does not exist/],
    ['schemas is a file', { schemas: 'a-file.txt' }, 'schemas', /expected a directory of JSON Schemas, but .*a-file\.txt is not a directory/],
    ['scenarios as an array', { scenarios: ['x.json'] }, 'scenarios', /expected an object mapping suite names to scenario files/],
    ['scenario path empty', { scenarios: { core: '' } }, 'scenarios.core', /expected a non-empty string/],
    ['scenario path of the wrong type', { scenarios: { 'my suite': 1 } }, 'scenarios["my suite"]', /expected a non-empty string, got number 1/],
    ['adapters not an array', { adapters: { name: 'a' } }, 'adapters', /expected an array of \{ name, cwd, adapterFile\? \}, got an object/],
    ['adapter entry not an object', { adapters: ['alpha'] }, 'adapters[0]', /expected an adapter entry \{ name, cwd, adapterFile\? \}, got "alpha"/],
    ['adapter cwd empty', { adapters: [{ name: 'alpha', cwd: 'a' }, { name: 'beta', cwd: '' }] }, 'adapters[1].cwd', /expected a non-empty string, got "" \(an empty string\)/],
    ['adapter cwd missing', { adapters: [{ name: 'alpha' }] }, 'adapters[0].cwd', /expected a non-empty string, got nothing \(missing\)/],
    ['adapter name of the wrong type', { adapters: [{ name: 3, cwd: 'a' }] }, 'adapters[0].name', /expected a non-empty string, got number 3/],
    ['adapter name with whitespace', { adapters: [{ name: 'my sdk', cwd: 'a' }] }, 'adapters[0].name', /expected a name without whitespace/],
    ['adapterFile empty', { adapters: [{ name: 'alpha', cwd: 'a', adapterFile: '' }] }, 'adapters[0].adapterFile', /expected a non-empty string/],
    ['adapter unknown key', { adapters: [{ name: 'alpha', cwd: 'a', command: ['x'] }] }, 'adapters[0].command', /unknown key; expected only name, cwd, adapterFile/],
    ['duplicate adapter names', { adapters: [{ name: 'alpha', cwd: 'a' }, { name: 'alpha', cwd: 'b' }] }, 'adapters[1].name', /expected a unique adapter name, but "alpha" is already used by adapters\[0\]/],
    ['transports not an array', { transports: 'http' }, 'transports', /expected a non-empty array of http \| stdio, got "http"/],
    ['transports empty', { transports: [] }, 'transports', /expected a non-empty array of http \| stdio, got \[\]/],
    ['unknown transport', { transports: ['http', 'grpc'] }, 'transports[1]', /expected one of http, stdio, got "grpc"/],
    ['duplicate transport', { transports: ['stdio', 'stdio'] }, 'transports[1]', /expected unique entries, but "stdio" is repeated/],
    ['unknown auth mode', { auth: ['basic'] }, 'auth[0]', /expected one of none, bearer, oauth, mtls, workload, got "basic"/],
    ['auth mode of the wrong type', { auth: ['none', true] }, 'auth[1]', /expected one of none, bearer, oauth, mtls, workload, got boolean true/],
    ['pairings not an array', { pairings: { server: 'alpha', client: 'beta' } }, 'pairings', /expected an array of \{ server, client \} adapter names/],
    ['pairing naming an unconfigured server', { pairings: [{ server: 'gamma', client: 'beta' }] }, 'pairings[0].server', /expected the name of a configured adapter \(one of "alpha", "beta"\), got "gamma"/],
    ['pairing naming an unconfigured client', { pairings: [{ server: 'alpha', client: 'beta' }, { server: 'beta', client: 'delta' }] }, 'pairings[1].client', /expected the name of a configured adapter \(one of "alpha", "beta"\), got "delta"/],
    ['pairing with no adapters configured', { adapters: [], pairings: [{ server: 'alpha', client: 'alpha' }] }, 'pairings[0].server', /no adapters are configured/],
    ['pairing missing client', { pairings: [{ server: 'alpha' }] }, 'pairings[0].client', /expected a non-empty string, got nothing \(missing\)/],
    ['pairing unknown key', { pairings: [{ server: 'alpha', client: 'beta', transport: 'http' }] }, 'pairings[0].transport', /unknown key; expected only server, client/],
    ['duplicate pairing', { pairings: [{ server: 'alpha', client: 'beta' }, { server: 'alpha', client: 'beta' }] }, 'pairings[1]', /expected a unique pairing, but alpha→beta repeats pairings\[0\]/],
    ['watchdogs not an object', { watchdogs: 1000 }, 'watchdogs', /expected an object \{ startupMs\?, runMs\? \}, got number 1000/],
    ['watchdog zero', { watchdogs: { startupMs: 0 } }, 'watchdogs.startupMs', /expected a positive integer \(milliseconds\), got number 0/],
    ['watchdog negative', { watchdogs: { runMs: -5 } }, 'watchdogs.runMs', /expected a positive integer \(milliseconds\), got number -5/],
    ['watchdog unknown key', { watchdogs: { teardownMs: 5 } }, 'watchdogs.teardownMs', /unknown key; expected only startupMs, runMs/],
    ['parallelism zero', { parallelism: 0 }, 'parallelism', /expected a positive integer \(pairings at once\), got number 0/],
    ['parallelism fractional', { parallelism: 1.5 }, 'parallelism', /expected a positive integer \(pairings at once\), got number 1.5/],
    ['parallelism as a string', { parallelism: '2' }, 'parallelism', /expected a positive integer \(pairings at once\), got "2"/],
  ];

  test.each(cases)('%s', async (_title, overrides, field, expectation) => {
    mkdirSync(path.join(tmp, 'schemas'));
    writeFileSync(path.join(tmp, 'a-file.txt'), 'not a directory');
    const file = write('config.json', { ...base, ...overrides });
    const error = await loadError(file);
    expect(error.file).toBe(file);
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${file}: ${field}: `)).toBe(true);
    expect(error.message).toMatch(expectation);
  });

});
