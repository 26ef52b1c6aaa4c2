// An arbitrary that hands the property each generated value TOGETHER with the fast-check Value it
// came from (value + shrink context), and never shrinks itself. The batch property uses it so that,
// when one case of a batch fails, that single case can be shrunk with fast-check's own shrinker
// (see batched-shrink.ts) instead of shrinking — and re-running — the whole batch.

import fc from 'fast-check';

export interface Captured<T> {
  value: T;
  /** The generated Value: `arbitrary.shrink(origin.value_, origin.context)` continues from it. */
  origin: fc.Value<T>;
}

class CapturingArbitrary<T> extends fc.Arbitrary<Captured<T>> {
  constructor(private readonly inner: fc.Arbitrary<T>) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<Captured<T>> {
    const origin = this.inner.generate(mrng, biasFactor);
    const captured: Captured<T> = { value: origin.value, origin };
    // fast-check may print a value; show the case, not its context.
    Object.defineProperty(captured, fc.toStringMethod, { value: () => fc.stringify(origin.value_), enumerable: false });
    return new fc.Value(captured, undefined);
  }

  canShrinkWithoutContext(value: unknown): value is Captured<T> {
    void value;
    return false;
  }

  shrink(): fc.Stream<fc.Value<Captured<T>>> {
    return fc.Stream.nil();
  }
}

export function captured<T>(inner: fc.Arbitrary<T>): fc.Arbitrary<Captured<T>> {
  return new CapturingArbitrary(inner);
}
