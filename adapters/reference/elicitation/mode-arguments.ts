// The elicitation adapter's command line (ELICITATION-RULES §2): the harness appends one mode to the
// adapter's `elicitation` command.
//   server <schemaDir> authenticated:<senderLang>   the receiver (long-lived)
//   check <schemaDir> authenticated:<senderLang>    the atomic helper (rows on stdin)
//   client                                          the sender (one plan on stdin)

export type ModeArguments =
  | { mode: 'server' | 'check'; schemaDir: string; principal: string }
  | { mode: 'client' };

export const USAGE = 'usage: elicitation server|check <schemaDir> authenticated:<language> | elicitation client';

/** The parsed arguments, or a one-line reason they are wrong (the caller exits 2 with it). */
export function parseModeArguments(args: readonly string[]): ModeArguments | { error: string } {
  const [mode, ...rest] = args;
  if (mode === 'client') return rest.length === 0 ? { mode } : { error: `client takes no arguments, got ${rest.length}; ${USAGE}` };
  if (mode === 'server' || mode === 'check') {
    const [schemaDir, principal, ...extra] = rest;
    if (schemaDir === undefined || schemaDir === '') return { error: `${mode}: missing <schemaDir>; ${USAGE}` };
    // The TS adapter's word for a missing principal; a receiver must never guess one.
    if (principal === undefined || !/^authenticated:\S+$/.test(principal)) return { error: `Missing auth: ${mode} needs the principal as authenticated:<language>; ${USAGE}` };
    if (extra.length > 0) return { error: `${mode}: unexpected extra arguments; ${USAGE}` };
    return { mode, schemaDir, principal };
  }
  return { error: mode === undefined ? `missing mode; ${USAGE}` : `unknown mode ${JSON.stringify(mode)}; ${USAGE}` };
}
