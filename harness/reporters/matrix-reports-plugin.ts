import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Plugin } from 'vite';

/**
 * The matrix reporter's file. Absolute, so an SDK's own vitest config (another root) finds it; named
 * like this module (.ts from source, .js once compiled).
 */
export const MATRIX_REPORTER = fileURLToPath(new URL(`./matrix-reporter${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

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
      // A reporter named by a relative path (a child run's `--reporter=./harness/...`) is the same one.
      const named = (entry: unknown): unknown => (Array.isArray(entry) ? entry[0] : entry);
      const isMatrix = (entry: unknown): boolean => {
        const name = named(entry);
        return typeof name === 'string' && path.resolve(vitest.config.root, name) === MATRIX_REPORTER;
      };
      if (!reporters.some(isMatrix)) reporters.push([MATRIX_REPORTER, {}]);
    },
  };
}
