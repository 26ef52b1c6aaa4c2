// The two `elicitation` commands of a pair: resolved at plan time (a pair where either adapter has
// none is `unsupported`, and nothing is started), prepared once per pair before its first process
// (the Go `go run` launcher becomes a binary built once for the run). The shared launcher owns both
// steps (harness/adapters/family-command.ts); this module only words the pair's view of them.

import type { LoadedAdapter } from '../../adapters/types.ts';
import { familyCommand, prepareFamilyCommand, type FamilyCommand } from '../../adapters/family-command.ts';

export interface PairCommands {
  sender: FamilyCommand;
  receiver: FamilyCommand;
}

/** Both commands, or the `unsupported: …` reason naming what is missing. */
export function resolvePairCommands(sender: LoadedAdapter, receiver: LoadedAdapter): { ok: true; commands: PairCommands } | { ok: false; reason: string } {
  const resolved = { sender: familyCommand(sender, 'elicitation'), receiver: familyCommand(receiver, 'elicitation') };
  const reasons = [...new Set([resolved.sender, resolved.receiver].flatMap((one) => (one.ok ? [] : [one.reason])))];
  if (!resolved.sender.ok || !resolved.receiver.ok) return { ok: false, reason: `unsupported: ${reasons.join('; ')}` };
  return { ok: true, commands: { sender: resolved.sender.command, receiver: resolved.receiver.command } };
}

/** The commands ready to start (a failed Go build makes the pair fail with the build's reason). */
export async function preparePairCommands(commands: PairCommands, buildDir: string): Promise<{ ok: true; commands: PairCommands } | { ok: false; reason: string }> {
  const [sender, receiver] = await Promise.all([prepareFamilyCommand(commands.sender, { buildDir }), prepareFamilyCommand(commands.receiver, { buildDir })]);
  if (!sender.ok) return { ok: false, reason: `sender ${commands.sender.adapter}: ${sender.reason}` };
  if (!receiver.ok) return { ok: false, reason: `receiver ${commands.receiver.adapter}: ${receiver.reason}` };
  return { ok: true, commands: { sender: sender.command, receiver: receiver.command } };
}

/** The notes of both commands (conventional location, Go swap), each once, for the log and the report. */
export function commandNotes(commands: PairCommands): string[] {
  return [...new Set([...commands.sender.notes, ...commands.receiver.notes])];
}
