// The `contentSources` a lifecycle client config carries (LIFECYCLE-RULES §2): the bytes of every
// upload the fixture expects the receiver to confirm, so that an SDK may upload them itself. Pure:
// derived from the rows alone, in first-seen order.

import { sha256Hex } from '../protocol/sha256-hex.ts';
import type { ContentSource, LifecycleScenario, UploadStep } from './scenario-types.ts';

/** The labels a broken fixture source fails with; the first two are the protocol runner's own words. */
export type ContentSourceProblem =
  | 'fixture source integrity mismatch'
  | 'fixture source alias mutated'
  | 'fixture source encoding invalid';

/** A fixture whose confirmed uploads cannot be turned into content sources. */
export class ContentSourceError extends Error {
  override readonly name = 'ContentSourceError';
  constructor(
    readonly label: ContentSourceProblem,
    /** JSON path of the upload step, relative to the rows passed in (`scenarios[13].steps[4]`). */
    readonly path: string,
    /** What the source should have been and what it is. */
    readonly detail: string,
  ) {
    super(`${label}: ${path}: ${detail}`);
  }
}

/** Only uploads the receiver is expected to confirm become sources. */
const CONFIRMED = 201;

/**
 * Strict base64: the standard alphabet with `=` padding to a multiple of four, and the canonical
 * encoding of its bytes (no stray bits in the last character). `undefined` for anything else, where
 * Buffer.from would silently skip or repair characters.
 */
export function decodeStrictBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** Whether `text` has no lone surrogate, i.e. encodes to UTF-8 without replacement characters. */
function isWellFormedText(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** The raw bytes of an upload step (`bodyBase64` decoded once, or `body` as UTF-8); `undefined` when malformed. */
export function uploadStepBytes(step: UploadStep): Buffer | undefined {
  if (step.bodyBase64 !== undefined) return decodeStrictBase64(step.bodyBase64);
  return isWellFormedText(step.body) ? Buffer.from(step.body, 'utf8') : undefined;
}

/**
 * Per row, the upload steps paired in order with `expected.uploadStatuses` (pairs beyond the shorter
 * list are dropped); only pairs expecting 201 count. Each source's bytes must have the step's
 * declared size and digest; an alias seen again with the same bytes is skipped, with other bytes it
 * is an error. Chain rows have no uploads.
 */
export function deriveContentSources(rows: readonly LifecycleScenario[]): ContentSource[] {
  const sources: ContentSource[] = [];
  const seen = new Map<string, { bytes: Buffer; path: string }>();
  rows.forEach((row, i) => {
    if (row.chain !== undefined) return;
    const statuses = row.expected.uploadStatuses;
    let uploadIndex = 0;
    row.steps.forEach((step, j) => {
      if (step.op !== 'upload') return;
      const status = statuses[uploadIndex++];
      if (status !== CONFIRMED) return;
      const path = `scenarios[${i}].steps[${j}]`;
      const bytes = uploadStepBytes(step);
      if (bytes === undefined) {
        throw new ContentSourceError(
          'fixture source encoding invalid',
          path,
          step.bodyBase64 !== undefined ? 'expected strict, canonical base64 in bodyBase64' : 'expected well-formed text (no lone surrogates) in body',
        );
      }
      const digest = sha256Hex(bytes);
      if (bytes.length !== step.size || digest !== step.sha256) {
        throw new ContentSourceError(
          'fixture source integrity mismatch',
          path,
          `alias ${JSON.stringify(step.ref)} declares size ${step.size} and sha256 ${step.sha256}, but its bytes have size ${bytes.length} and sha256 ${digest}`,
        );
      }
      const earlier = seen.get(step.ref);
      if (earlier !== undefined) {
        if (earlier.bytes.equals(bytes)) return;
        throw new ContentSourceError(
          'fixture source alias mutated',
          path,
          `alias ${JSON.stringify(step.ref)} names other bytes than at ${earlier.path} (a confirmed alias must always name the same bytes)`,
        );
      }
      seen.set(step.ref, { bytes, path });
      sources.push({ descriptor: { ref: step.ref, size: bytes.length, sha256: digest }, bytes: bytes.toString('base64') });
    });
  });
  return sources;
}
