// Read by vitest.config.ts (before any project exists), so it imports nothing.

/** `--shard=i/n` (or `--shard i/n`) from an argv, or undefined. */
export function shardFromArgv(argv: readonly string[]): { index: number; count: number } | undefined {
  const at = argv.findIndex((arg) => arg === '--shard' || arg.startsWith('--shard='));
  if (at < 0) return undefined;
  const value = argv[at]!.startsWith('--shard=') ? argv[at]!.slice('--shard='.length) : argv[at + 1];
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!match) return undefined;
  return { index: Number(match[1]), count: Number(match[2]) };
}

