// `npm run requirements -- --check [--spec DIR] [--schemas DIR]`: fails (exit 1) when our requirement
// table and the spec's requirement IDs disagree, listing every difference. Without --check it prints
// the table. The spec is AHP_CANONICAL_SPEC (default ../shared/reference/spec beside the checkout),
// the schemas AHP_CANONICAL_SCHEMAS (default ../shared/reference/schema).

import { REQUIREMENTS } from './requirement-table.ts';
import { compareWithSpec, DEFAULT_SPEC_DIR, DEFAULT_SPEC_SCHEMA_DIR, readSpecIds, SpecRequirementsError } from './spec-ids.ts';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

const args = process.argv.slice(2);
if (!args.includes('--check')) {
  for (const entry of REQUIREMENTS) process.stdout.write(`${entry.id}\t${entry.level}\t${entry.summary}\n`);
} else {
  const specDir = option(args, '--spec') ?? (process.env.AHP_CANONICAL_SPEC || DEFAULT_SPEC_DIR);
  const schemaDir = option(args, '--schemas') ?? (process.env.AHP_CANONICAL_SCHEMAS || DEFAULT_SPEC_SCHEMA_DIR);
  try {
    const problems = compareWithSpec(REQUIREMENTS, readSpecIds(specDir, schemaDir));
    if (problems.length > 0) {
      process.stderr.write(`harness/requirements/requirement-table.ts disagrees with the spec (${specDir}, ${schemaDir}):\n  ${problems.join('\n  ')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`requirement table: ${REQUIREMENTS.length} IDs, the same as the spec's (${specDir}, ${schemaDir})\n`);
    }
  } catch (error) {
    if (!(error instanceof SpecRequirementsError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}
