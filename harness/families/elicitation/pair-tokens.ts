// The two credentials of one elicitation pair (ELICITATION-RULES §2): an event bearer and an
// independent upload bearer, fresh for every pair so that no pair can replay another's. They reach
// the adapters only through the environment, and every text the harness shows (verdicts, kept logs)
// is redacted against them.

import { randomBytes } from 'node:crypto';

export interface PairTokens {
  eventToken: string;
  uploadToken: string;
}

/** 32 random bytes each, URL-safe base64 (what the protocol's runner uses: `token_urlsafe(32)`). */
export function freshPairTokens(): PairTokens {
  const token = (): string => randomBytes(32).toString('base64url');
  return { eventToken: token(), uploadToken: token() };
}

/**
 * The variables every process of the pair gets, whatever its role. `AHP_ELICITATION_BINDING` names the
 * case file's binding (`upload` or `inline`): an adapter that speaks both (ours) follows it, the SDK
 * adapters of today speak upload and ignore it.
 */
export function pairEnvironment(tokens: PairTokens, family: Record<string, string>, binding: 'upload' | 'inline' = 'upload'): Record<string, string> {
  return { ...family, AHP_ELICITATION_TOKEN: tokens.eventToken, AHP_ELICITATION_UPLOAD_TOKEN: tokens.uploadToken, AHP_ELICITATION_BINDING: binding };
}

export function secretValues(tokens: PairTokens): string[] {
  return [tokens.eventToken, tokens.uploadToken];
}
