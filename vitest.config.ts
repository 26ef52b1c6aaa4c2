import { defineConfig } from 'vitest/config';

// One vitest project per suite, so `npx vitest --project <name>` runs exactly one of them.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'oracle',
          include: ['suites/oracle/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'harness',
          include: ['suites/harness/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
