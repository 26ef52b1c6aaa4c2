// `npx ahp-conformance`: tests the SDK in the working directory through vitest's Node API, so every
// vitest feature stays available and the exit code is vitest's. Bad flags and bad config end in one
// line naming the flag or the file and field, and exit code 2, before vitest starts.

import path from 'node:path';

import { startVitest } from 'vitest/node';

import type { UserConfig } from '../config/define-config.ts';
import { ConfigError } from '../config/load-config.ts';
import { AdapterError, loadAdapter } from '../adapters/adapter-manifest.ts';
import { MATRIX_REPORTER } from '../reporters/matrix-reports-plugin.ts';
import ShardSequencer from '../setup/shard-sequencer.ts';
import { parseCliArgs, UsageError, type CliRun } from './cli-args.ts';
import { helpText } from './cli-flags.ts';
import { readUserConfig, writeConfigSnapshot } from './config-snapshot.ts';
import { initConfig } from './init.ts';
import { applyFlags, findConfigFile, REFERENCE_NAME, sdkInFolder, suitesFor, zeroConfig } from './sdk-config.ts';
import { SUITE_ROOT, suiteProjects, SUITES, type Suite } from './suite-projects.ts';

const USAGE_EXIT = 2;

export async function main(argv: readonly string[], cwd: string): Promise<number> {
  try {
    const request = parseCliArgs(argv);
    if (request.command === 'help') {
      process.stdout.write(helpText());
      return 0;
    }
    if (request.command === 'init') {
      process.stdout.write(initConfig(cwd, { json: request.json }).message);
      return 0;
    }
    return await run(request, cwd);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof AdapterError || error instanceof PlainError) {
      process.stderr.write(`ahp-conformance: ${error.message}\n`);
      return USAGE_EXIT;
    }
    throw error;
  }
}

/** A problem the user fixes (a missing file), reported as one line like the others. */
class PlainError extends Error {}

async function run(request: CliRun, cwd: string): Promise<number> {
  const configFile = request.config === undefined ? findConfigFile(cwd) : path.resolve(cwd, request.config);
  let base: UserConfig;
  let file: string;
  if (configFile === undefined) {
    const sdk = wrap(() => sdkInFolder(cwd));
    base = zeroConfig(cwd, sdk);
    // Never read: it only anchors relative paths (there are none) and names the source in messages.
    file = path.join(cwd, '(command-line config)');
  } else {
    base = await readUserConfig(configFile);
    file = configFile;
  }
  const snapshot = await writeConfigSnapshot(applyFlags(base, request, cwd), file);
  const suites = request.suites ?? defaultSuites(snapshot.resolved.adapters);

  process.env.AHP_CONFIG = snapshot.file;
  process.env.AHP_CONFIG_SOURCE = configFile ?? cwd;
  // The page's run header then says `npx ahp-conformance <these flags>` reproduces the run.
  process.env.AHP_PACKAGE_CLI = '1';
  if (request.updateBaseline) process.env.AHP_UPDATE_BASELINE = '1';

  const vitest = await startVitest(
    'test',
    [],
    {
      root: cwd,
      config: false,
      watch: request.watch,
      run: !request.watch,
      ...(request.testNamePattern !== undefined ? { testNamePattern: request.testNamePattern } : {}),
      ...(request.shard ? { shard: `${request.shard.index}/${request.shard.count}` } : {}),
      ...(request.reporters ? { reporters: request.reporters } : {}),
      ...(request.mergeReports !== undefined ? { mergeReports: path.resolve(cwd, request.mergeReports) } : {}),
      ...(request.outputFile !== undefined ? { outputFile: path.resolve(cwd, request.outputFile) } : {}),
    },
    {
      // vite's and vitest's caches go inside the installed package: a Python or Go repo never grows a
      // node_modules folder.
      cacheDir: path.join(SUITE_ROOT, 'node_modules', '.vite'),
      test: {
        reporters: ['default', MATRIX_REPORTER],
        sequence: { sequencer: ShardSequencer },
        projects: suiteProjects({ suites, sharded: request.shard !== undefined }),
      },
    },
  );
  if (request.watch) {
    // vitest keeps running until the user quits; its own handlers end the process.
    await new Promise<never>(() => {});
  }
  await vitest.close();
  return typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
}

/** Every suite a tested SDK has the commands for (the reference's own, when it is all there is). */
function defaultSuites(adapters: ReadonlyArray<{ name: string; cwd: string; adapterFile: string }>): Suite[] {
  const sdks = adapters.filter((entry) => entry.name !== REFERENCE_NAME);
  const wanted = new Set<Suite>();
  for (const entry of sdks.length > 0 ? sdks : adapters) {
    for (const suite of suitesFor(loadAdapter(entry))) wanted.add(suite);
  }
  return SUITES.filter((suite) => wanted.has(suite));
}

function wrap<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw new PlainError((error as Error).message);
  }
}
