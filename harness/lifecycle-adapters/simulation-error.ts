// The error both lifecycle simulators throw for a script or chain whose outcome they would have to
// guess; the generator turns it into a build problem naming the row and the step.

export class LifecycleSimulationError extends Error {
  override readonly name = 'LifecycleSimulationError';
  constructor(
    readonly scenario: string,
    /** `steps[4]`, or `chain.subscriptions[1]` for chains. */
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${scenario}: ${where}: ${problem}`);
  }
}
