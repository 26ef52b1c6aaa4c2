// The files `npm run fixtures` generates, in the family list's order: each family's hooks declare
// theirs (fixture-target.ts says what a target is). The CLI (fixtures-cli.ts) and the generator tests
// share this list, so one command regenerates or checks every generated fixture file and the tests
// compare exactly what the command writes.

import { FAMILIES } from '../families/family.ts';
import type { FixtureTarget } from './fixture-target.ts';


export const FIXTURE_TARGETS: readonly FixtureTarget[] = (await Promise.all(FAMILIES.map(async (family) => (await family.hooks()).hooks.fixtureTargets ?? []))).flat();
