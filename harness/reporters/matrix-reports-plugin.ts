import type { Plugin } from 'vite';

/** The matrix reporter, as the config names it (resolved against the project root by vitest). */
export const MATRIX_REPORTER = './harness/reporters/matrix-reporter.ts';

/**
 * Keeps the matrix reports (`reports/<project>-matrix.md`, `<project>.json`) coming when the user names
 * reporters on the command line: `--reporter=junit` replaces the configured reporters, and the matrix
 * summary is an artifact of the run, not a display choice. Added to every project that produces
 * matrix rows; vitest creates the reporters only after every project's `configureVitest` hook.
 */
export function matrixReports(): Plugin {
  return {
    name: 'ahp-conformance:matrix-reports',
    configureVitest({ vitest }) {
      const reporters = vitest.config.reporters;
      const named = (entry: unknown): unknown => (Array.isArray(entry) ? entry[0] : entry);
      if (!reporters.some((entry) => named(entry) === MATRIX_REPORTER)) reporters.push([MATRIX_REPORTER, {}]);
    },
  };
}
