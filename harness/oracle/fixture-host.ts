// The fixture host: the synthetic host the seed's nine rules are written for, as the protocol's own
// scenarios spell it. This module is the one place that says which fixture details a local host rule
// is keyed to, so our rows, the fuzzer and the oracle cannot drift from the protocol's host on a name
// (they once did: our tool was `task.run`, and an SDK host written against the protocol's fixture,
// which keys the task rule to the tool `task`, never applied the rule to our rows).
//
// What the host is, and where each detail comes from:
// - its one tool is `task` (kind `task`, origin `native`, event path `native`) and its events come
//   from `urn:ahp:interop`: the details every tool call of the protocol's canonical scenario files
//   carries (interop/canonical/*.json). No rule keys on the source or the path; they are the
//   protocol's so that our rows read like its rows to a host written against them;
// - rule 2: its managed policy allows and its ordinary native policy asks for no prompt, so
//   permission `none` resolves to allow. That is keyed to no detail at all: it holds for every row;
// - rule 4: every staged input of its tool must be an object with a positive integer `task`
//   (booleans are not integers). The seed calls this "local fixture behavior", and the fixture's only
//   tool is `task`. For a tool the fixture host does not have, the seed's sentence ("every staged
//   tool input") and the protocol's scenarios (which key the rule to `task`) part ways, so the oracle
//   keeps the literal reading and `undefined-inputs.ts` marks any outcome that depends on it as
//   undefined by the protocol.

import { isJsonObject, type JsonValue } from '../protocol/json.ts';
import type { InterceptEvent } from '../protocol/messages.ts';

/** The fixture host's event source. */
export const FIXTURE_HOST_SOURCE = 'urn:ahp:interop';

/** The fixture host's one tool, exactly as a tool.before event of the protocol's scenarios names it. */
export const FIXTURE_HOST_TOOL = { name: 'task', kind: 'task', origin: 'native' } as const;

/** The event `path` of a call to the fixture host's tool. */
export const FIXTURE_HOST_TOOL_PATH = 'native';

/**
 * Which tool a tool.before event calls, as far as the task rule is concerned:
 * - `fixture-tool`: the fixture host's `task`; the rule is defined and applies;
 * - `other-tool`: some other tool; the oracle applies the rule (the seed's literal wording), but
 *   whether a host does is not defined by the protocol;
 * - `no-tool`: not a tool boundary; nothing is staged, the rule has nothing to check.
 */
export type TaskRuleScope = 'fixture-tool' | 'other-tool' | 'no-tool';

export function taskRuleScope(event: Pick<InterceptEvent, 'type' | 'tool'>): TaskRuleScope {
  if (event.type !== 'tool.before' || !event.tool) return 'no-tool';
  return event.tool.name === FIXTURE_HOST_TOOL.name ? 'fixture-tool' : 'other-tool';
}

/** Rule 4's input contract: an object whose `task` is a positive integer (never a boolean). */
export function taskInputProblem(input: JsonValue): string | undefined {
  if (!isJsonObject(input)) return 'staged input is not an object';
  const task = input.task;
  if (typeof task !== 'number' || !Number.isInteger(task) || task < 1) {
    return `staged input.task ${JSON.stringify(task ?? null)} is not a positive integer`;
  }
  return undefined;
}
