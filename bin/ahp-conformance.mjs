#!/usr/bin/env node
// The installed package's command: the compiled CLI (dist/ is built by `npm pack`'s prepack step).
const { main } = await import('../dist/harness/package/cli.js');
process.exitCode = await main(process.argv.slice(2), process.cwd());
