// What the stdio recorder (stdio-recorder.mjs) saw of one receiver process the sender spawned: the
// scope in its argv, every line that went in and every line that came out. With it a verdict tells
// a sender's fault (it sent or reported something else) from a receiver's (it answered or recorded
// something else).

export interface StdioWireRecord {
  /** 1 for the first receiver process of the run, 2 for the next, ... */
  instance: number;
  /** The scope argument (`stdio <scope>`); undefined when the argv had none. */
  scope: string | undefined;
  /** True for the probe client's receiver (`stdio <scope> stdio`). */
  probe: boolean;
  /** Each stdin line, parsed; `{invalidJson: <text>}` for a line that is not JSON. */
  requests: unknown[];
  /** Each stdout line, parsed likewise. */
  replies: unknown[];
}

export function invalidLine(text: string): { invalidJson: string } {
  return { invalidJson: text.length > 200 ? `${text.slice(0, 200)}…` : text };
}
