// The reference adapter is strict: every role enforces the semantic lint's per-message MUSTs
// (harness/protocol/semantic-lint/message-rules.ts). Its clients refuse to send a message that breaks
// one, and its receivers refuse one that arrives, so a fixture of ours that breaks the spec fails our
// own CI loudly, naming the rule, instead of passing here and failing a correct SDK later.

import { lintSentMessage, type SentKind } from '../../../harness/protocol/semantic-lint/message-rules.ts';

/** The MUSTs `message` breaks as one line (`[rule] path: what; ...`), or undefined when it may go. */
export function semanticRefusal(message: unknown, kind: SentKind): string | undefined {
  const problems = lintSentMessage(message, kind);
  if (problems.length === 0) return undefined;
  return problems.map((p) => `[${p.rule}] ${p.path || '(message)'}: ${p.message}`).join('; ');
}
