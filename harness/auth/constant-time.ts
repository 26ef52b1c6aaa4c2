// Constant-time comparison of secret strings: both sides are hashed to equal-length digests first,
// so neither the content nor the length of the expected secret leaks through timing.

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export function secretsEqual(received: string, expected: string): boolean {
  return timingSafeEqual(digest(received), digest(expected));
}
