/**
 * An SDK's own vitest config names our projects with a prefix (`ahp:core`, see
 * harness/package/vitest-helper.ts) so they cannot collide with its own; reports and baseline entries
 * keep the suite's bare name either way.
 */
export const PROJECT_PREFIX = 'ahp:';

/** The suite a vitest project runs: `core` for both `core` and `ahp:core`. */
export function suiteOfProject(projectName: string): string {
  return projectName.startsWith(PROJECT_PREFIX) ? projectName.slice(PROJECT_PREFIX.length) : projectName;
}
