import { rmSync, writeFileSync } from 'node:fs';
import type { AuthMode } from '../config/define-config.ts';
import { STATIC_SECRETS } from './constants.ts';
import { clientAuthSettings, secretsOf, serverAuthSettings, type ClientAuthSettings, type ServerAuthSettings } from './auth-settings.ts';
import { startOAuthIssuer, type OAuthIssuer } from './oauth-issuer.ts';
import type { TestPki } from './pki.ts';

/**
 * The synthetic local trust of one run: the OAuth issuer and the test PKI, and the exact server/client
 * auth settings for every mode. Created lazily — `ensure(mode)` builds only what that mode needs (the
 * PKI for mtls, the issuer for oauth) the first time it is asked — so a run that selects one group
 * pays only for that group's mode. Owned by a globalSetup; `close()` stops the issuer and removes the
 * key files.
 */
export interface RunTrust {
  /** The modes ensured so far, in AUTH_MODES order of first use. */
  readonly modes: readonly AuthMode[];
  readonly pki: TestPki | undefined;
  readonly issuer: OAuthIssuer | undefined;
  /** Builds what `mode` needs, once; concurrent calls share the work. */
  ensure(mode: AuthMode): Promise<void>;
  /** The settings of an ensured mode (throws for a mode never ensured: a harness bug). */
  server(mode: AuthMode): ServerAuthSettings;
  client(mode: AuthMode): ClientAuthSettings;
  /** Every secret of the run so far (static ones, issued tokens, assertions, private keys). */
  secrets(): string[];
  close(): Promise<void>;
}

/** Environment variable naming a file that receives the run's secrets at teardown (hygiene self-test). */
export const SECRETS_FILE_ENV = 'AHP_HYGIENE_SECRETS_FILE';

/** The run's trust with `modes` built at once (for callers that need every mode up front). */
export async function createRunTrust(modes: readonly AuthMode[], workDir: string): Promise<RunTrust> {
  const trust = createLazyRunTrust(workDir);
  try {
    for (const mode of modes) await trust.ensure(mode);
  } catch (error) {
    await trust.close();
    throw error;
  }
  return trust;
}

/** The run's trust with nothing built yet; see RunTrust.ensure. */
export function createLazyRunTrust(workDir: string): RunTrust {
  let pki: TestPki | undefined;
  let issuer: OAuthIssuer | undefined;
  let pkiPromise: Promise<TestPki> | undefined;
  let issuerPromise: Promise<OAuthIssuer> | undefined;
  const server = new Map<AuthMode, ServerAuthSettings>();
  const client = new Map<AuthMode, ClientAuthSettings>();
  const pending = new Map<AuthMode, Promise<void>>();
  const modes: AuthMode[] = [];
  let closed = false;

  const build = async (mode: AuthMode): Promise<void> => {
    // The PKI module (an X.509 library) is loaded only when mtls is first needed: ~200 ms of every
    // globalSetup that never touches it.
    if (mode === 'mtls') pki = await (pkiPromise ??= import('./pki.ts').then(({ createTestPki }) => createTestPki(workDir)));
    if (mode === 'oauth') issuer = await (issuerPromise ??= startOAuthIssuer());
    if (closed) throw new Error('run trust: closed while a mode was being built');
    const material = { ...(pki ? { pki } : {}), ...(issuer ? { tokenEndpoint: issuer.tokenEndpoint } : {}) };
    server.set(mode, serverAuthSettings(mode, material));
    client.set(mode, await clientAuthSettings(mode, material));
    modes.push(mode);
  };

  const secrets = (): string[] =>
    secretsOf(...STATIC_SECRETS, ...server.values(), ...client.values(), ...(issuer ? [issuer] : []), ...(pki ? [pki] : []));

  return {
    get modes() {
      return [...modes];
    },
    get pki() {
      return pki;
    },
    get issuer() {
      return issuer;
    },
    ensure(mode) {
      let promise = pending.get(mode);
      if (!promise) {
        promise = build(mode);
        pending.set(mode, promise);
        // A failed build may be retried (e.g. in watch mode).
        promise.catch(() => pending.delete(mode));
      }
      return promise;
    },
    server: (mode) => settingFor(server, mode),
    client: (mode) => settingFor(client, mode),
    secrets,
    async close() {
      closed = true;
      await Promise.allSettled(pending.values());
      const file = process.env[SECRETS_FILE_ENV];
      if (file) writeFileSync(file, `${JSON.stringify(secrets())}\n`, { mode: 0o600 });
      await issuer?.close();
      if (pki) rmSync(pki.dir, { recursive: true, force: true });
    },
  };
}

function settingFor<T>(settings: Map<AuthMode, T>, mode: AuthMode): T {
  const value = settings.get(mode);
  if (value === undefined) throw new Error(`auth mode "${mode}" is not part of this run's trust (modes: ${[...settings.keys()].join(', ')})`);
  return value;
}
