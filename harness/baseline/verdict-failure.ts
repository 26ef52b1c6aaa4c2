/**
 * A conformance verdict that failed: the SDK under test broke a rule, the harness did not crash. It
 * carries no stack frames, so vitest prints the message (the row, the evidence, the kept logs) and no
 * code frame of the harness line that threw it. Genuine harness errors are ordinary errors and keep
 * their stacks.
 */
export class VerdictFailure extends Error {
  override readonly name = 'VerdictFailure';

  constructor(message: string) {
    super(message);
    // vitest takes the frames (and the code frame above them) from `stack`; the message is the whole story.
    this.stack = `${this.name}: ${message}`;
  }
}
