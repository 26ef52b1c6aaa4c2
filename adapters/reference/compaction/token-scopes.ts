// Per-scope bearer credentials of the HTTP receiver, handed over only through the environment as JSON
// maps {token: scope}. Tokens are secrets: nothing here ever puts one into a message.

export const EVENT_TOKENS_VARIABLE = 'AHP_COMPACTION_TOKENS';
export const UPLOAD_TOKENS_VARIABLE = 'AHP_COMPACTION_UPLOAD_TOKENS';

export class TokenMapError extends Error {
  override readonly name = 'TokenMapError';
}

/** The token → scope map in `variable`; an absent variable is an empty map (every request is refused). */
export function tokenScopes(variable: string, env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const text = env[variable];
  if (text === undefined || text === '') return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TokenMapError(`${variable}: expected a JSON object mapping tokens to scopes (not valid JSON)`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new TokenMapError(`${variable}: expected a JSON object mapping tokens to scopes`);
  const scopes = new Map<string, string>();
  for (const [token, scope] of Object.entries(parsed)) {
    if (typeof scope !== 'string') throw new TokenMapError(`${variable}: every value must be a scope name (string); one is ${typeof scope}`);
    scopes.set(token, scope);
  }
  return scopes;
}

/** The scope a request's `Authorization: Bearer <token>` header names, or undefined. */
export function scopeOfAuthorization(header: string | undefined, scopes: ReadonlyMap<string, string>): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match ? scopes.get(match[1]!) : undefined;
}
