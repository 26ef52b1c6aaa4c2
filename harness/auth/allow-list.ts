// The allow-list of principals: a policy the contract's server config (v1) does not carry. The
// contract tells a server how to authenticate a caller (the signature, issuer, audience, purpose and
// lifetime of a token; the CA of a client certificate) and nothing about which authenticated callers
// to authorise. A server that refuses an unlisted subject therefore needs to be told the list, and a
// server that was never told cannot be faulted for accepting one.
//
// So the harness passes the list in a namespaced extension of the server config, and only to an
// adapter whose adapter.json `authAllowList` names the mode:
//
//   "extensions": { "ahp-conformance/auth-allow-list": { "principals": ["ahp-interop-client"] } }
//
// `principals` are the JWT `sub` (oauth, workload) or the client certificate's subject CN (mtls) the
// server authorises; every other authenticated identity gets 403. The probes that need the list run
// only then; otherwise they are skipped with `allowListSkipReason`.

import { AUTH_ALLOW_LIST_MODES, type AuthAllowListMode, type LoadedAdapter } from '../adapters/types.ts';
import type { AuthMode } from '../config/define-config.ts';
import { CLIENT_PRINCIPAL } from './constants.ts';

/** The extension's key inside the server config's `extensions` object. */
export const AUTH_ALLOW_LIST_EXTENSION = 'ahp-conformance/auth-allow-list';

/** The extension's value: the identities the server authorises (the run's trusted test client only). */
export interface AuthAllowList {
  principals: string[];
}

function hasAllowList(mode: AuthMode): mode is AuthAllowListMode {
  return (AUTH_ALLOW_LIST_MODES as readonly string[]).includes(mode);
}

/** Whether `adapter`'s server is handed the allow-list in `mode` (its adapter.json declares it). */
export function readsAllowList(adapter: LoadedAdapter, mode: AuthMode): boolean {
  return hasAllowList(mode) && (adapter.manifest.authAllowList?.includes(mode) ?? false);
}

/**
 * The server-config keys that carry the allow-list to `adapter` in `mode`: `{extensions: {...}}` when
 * the adapter declares it reads the list, otherwise nothing (the config stays exactly the contract's).
 */
export function allowListServerConfig(adapter: LoadedAdapter, mode: AuthMode): { extensions: Record<string, AuthAllowList> } | Record<string, never> {
  if (!readsAllowList(adapter, mode)) return {};
  return { extensions: { [AUTH_ALLOW_LIST_EXTENSION]: { principals: [CLIENT_PRINCIPAL] } } };
}

/**
 * Why a probe that needs the allow-list is skipped for `adapter`'s server in `mode`, or undefined when
 * the server is given the list (and the probe runs).
 */
export function allowListSkipReason(adapter: LoadedAdapter, mode: AuthMode): string | undefined {
  if (readsAllowList(adapter, mode)) return undefined;
  return (
    `unsupported: adapter "${adapter.name}" does not declare auth mode "${mode}" in interop/adapter.json authAllowList, ` +
    `so its server is given no allow-list of principals (the contract's server config names none) and is not required to refuse an authenticated one`
  );
}
