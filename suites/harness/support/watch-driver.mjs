// Runs vitest in watch mode through its Node API (createVitest), as an editor or `npx vitest` would,
// for the watch-mode self-test: every finished run is written to stdout as one JSON line
// {"event":"run-end","tests":[{"group","name","state"}]}; a line "close" on stdin ends vitest and
// this process. Environment: AHP_CONFIG (and whatever else the test sets), AHP_WATCH_PROJECT.
import { createVitest } from 'vitest/node';

const emit = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const reporter = {
  onTestRunEnd(modules) {
    const tests = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        tests.push({
          group: test.parent.type === 'suite' ? test.parent.name : '',
          name: test.name,
          state: result.state,
          ...(result.state === 'failed' ? { error: String(result.errors?.[0]?.message ?? '').slice(0, 500) } : {}),
        });
      }
    }
    emit({ event: 'run-end', tests });
  },
};

// AHP_WATCH_PROJECT: the project to watch (the package self-test watches an SDK's `ahp:core`).
const vitest = await createVitest('test', { watch: true, project: [process.env.AHP_WATCH_PROJECT ?? 'core'], reporters: [reporter] });
process.stdin.setEncoding('utf8');
process.stdin.on('data', async (chunk) => {
  if (!chunk.includes('close')) return;
  await vitest.close();
  process.exit(0);
});
await vitest.start();
emit({ event: 'started' });
