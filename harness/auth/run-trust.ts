import { writeFileSync } from 'node:fs';
import type { AuthMode } from '../config/define-config.ts';
import { STATIC_SECRETS } from './constants.ts';
import { clientAuthSettings, secretsOf, serverAuthSettings, type ClientAuthSettings, type ServerAuthSettings } from './auth-settings.ts';
import { startOAuthIssuer, type OAuthIssuer } from './oauth-issuer.ts';
import { createTestPki, removeTestPki, type TestPki } from './pki.ts';

/**
 * The synthetic local trust of one run: the OAuth issuer and the test PKI, started only when a
 * configured mode needs them, and the exact server/client auth settings for every mode. Owned by a
 * globalSetup; `close()` stops the issuer and removes the key files.
 */
export interface RunTrust {
  readonly modes: readonly AuthMode[];
  readonly pki: TestPki | undefined;
  readonly issuer: OAuthIssuer | undefined;
  server(mode: AuthMode): ServerAuthSettings;
  client(mode: AuthMode): ClientAuthSettings;
  /** Every secret of the run so far (static ones, issued tokens, assertions, private keys). */
  secrets(): string[];
  close(): Promise<void>;
}

/** Environment variable naming a file that receives the run's secrets at teardown (hygiene self-test). */
export const SECRETS_FILE_ENV = 'AHP_HYGIENE_SECRETS_FILE';

export async function createRunTrust(modes: readonly AuthMode[], workDir: string): Promise<RunTrust> {
  const pki = modes.includes('mtls') ? await createTestPki(workDir) : undefined;
  let issuer: OAuthIssuer | undefined;
  try {
    issuer = modes.includes('oauth') ? await startOAuthIssuer() : undefined;
  } catch (error) {
    if (pki) removeTestPki(pki);
    throw error;
  }
  const material = { ...(pki ? { pki } : {}), ...(issuer ? { tokenEndpoint: issuer.tokenEndpoint } : {}) };
  const server = new Map(modes.map((mode) => [mode, serverAuthSettings(mode, material)]));
  const client = new Map<AuthMode, ClientAuthSettings>();
  for (const mode of modes) client.set(mode, await clientAuthSettings(mode, material));

  const secrets = (): string[] =>
    secretsOf(
      ...STATIC_SECRETS,
      ...server.values(),
      ...client.values(),
      ...(issuer ? [issuer] : []),
      ...(pki ? [pki] : []),
    );
  return {
    modes,
    pki,
    issuer,
    server: (mode) => settingFor(server, mode),
    client: (mode) => settingFor(client, mode),
    secrets,
    async close() {
      const file = process.env[SECRETS_FILE_ENV];
      if (file) writeFileSync(file, `${JSON.stringify(secrets())}\n`, { mode: 0o600 });
      await issuer?.close();
      if (pki) removeTestPki(pki);
    },
  };
}

function settingFor<T>(settings: Map<AuthMode, T>, mode: AuthMode): T {
  const value = settings.get(mode);
  if (value === undefined) throw new Error(`auth mode "${mode}" is not part of this run's trust (modes: ${[...settings.keys()].join(', ')})`);
  return value;
}
