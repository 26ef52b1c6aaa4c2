// A lint of action.yml against the CLI's flag table (harness/package/cli-flags.ts): the action's
// inputs are exactly the mapped flags plus its settings, each flag input reaches the run step through
// its own IN_* variable, and is passed to its own flag the way the flag's kind needs (one value, each
// item of a list, or the bare flag for a boolean). action.yml is parsed line by line: it is ours and
// kept in the one-input-per-line shape this expects.

import { ACTION_INPUTS, ACTION_SETTINGS, FLAGS, type FlagSpec } from '../../../harness/package/cli-flags.ts';

/** Flags with no CI meaning, so no input: help, and watch (interactive). */
const NOT_INPUTS = new Set(['help', 'watch']);

export function actionMappingProblems(actionYml: string): string[] {
  const problems: string[] = [];
  const inputs = [...actionYml.matchAll(/^ {2}([a-z][a-z-]*): \{ description:/gm)].map((match) => match[1]!);
  const expected = [...Object.keys(ACTION_INPUTS), ...ACTION_SETTINGS];
  for (const name of inputs) if (!expected.includes(name)) problems.push(`action.yml: inputs.${name}: not a mapped flag (ACTION_INPUTS) nor a setting (ACTION_SETTINGS)`);
  for (const name of expected) if (!inputs.includes(name)) problems.push(`action.yml: inputs.${name}: missing`);
  for (const flag of FLAGS) {
    if (!NOT_INPUTS.has(flag.name) && !Object.values(ACTION_INPUTS).includes(flag.name)) problems.push(`cli-flags.ts: --${flag.name} has no action input`);
  }
  for (const [input, flagName] of Object.entries(ACTION_INPUTS)) {
    const flag = FLAGS.find((entry) => entry.name === flagName);
    if (!flag) {
      problems.push(`cli-flags.ts: ACTION_INPUTS.${input}: --${flagName} is not a CLI flag`);
      continue;
    }
    const variable = `IN_${input.toUpperCase().replaceAll('-', '_')}`;
    if (!new RegExp(`^ {8}${variable}: \\$\\{\\{ inputs\\.${input} \\}\\}$`, 'm').test(actionYml)) problems.push(`action.yml: env ${variable}: expected \${{ inputs.${input} }}`);
    const spelled = flag.short ? `-${flag.short}` : `--${flag.name}`;
    const calls = [...actionYml.matchAll(new RegExp(`^ {8}(one|each|yes) (\\S+) "\\$${variable}"$`, 'gm'))];
    if (calls.length !== 1) {
      problems.push(`action.yml: run: expected exactly one line passing "$${variable}" to ${spelled}, found ${calls.length}`);
      continue;
    }
    const [, how, passedTo] = calls[0]!;
    const alias = flag.name === passedTo?.replace(/^--/, '') || spelled === passedTo;
    if (!alias) problems.push(`action.yml: run: inputs.${input} is passed to ${passedTo}, expected ${spelled}`);
    if (how !== helperFor(flag)) problems.push(`action.yml: run: inputs.${input} is passed with ${how}, expected ${helperFor(flag)} (a ${flag.kind} flag)`);
  }
  return problems;
}

function helperFor(flag: FlagSpec): string {
  return flag.kind === 'boolean' ? 'yes' : flag.kind === 'string' ? 'one' : 'each';
}
