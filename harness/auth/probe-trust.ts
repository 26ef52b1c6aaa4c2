// The trust the auth probe tests need: public endpoints and file paths of the run's synthetic trust,
// never secret values. The run's server broker hands it out per mode (after building that mode's
// trust), so a selection of one mode's probes builds only that mode's issuer or PKI.

import type { RunTrust } from './run-trust.ts';

/** Public endpoints and file paths of the modes built so far; no secret values. */
export interface ProbeTrust {
  tokenEndpoint?: string;
  pki?: {
    caFile: string;
    server: { certFile: string; keyFile: string };
    client: { certFile: string; keyFile: string };
    unauthorisedClient: { certFile: string; keyFile: string };
    untrustedClient: { certFile: string; keyFile: string };
    /** The client probes' hostile mtls endpoint (a certificate from the untrusted CA). */
    untrustedServer: { certFile: string; keyFile: string };
  };
}

export function probeTrustOf(trust: RunTrust): ProbeTrust {
  const files = (entry: { certFile: string; keyFile: string }) => ({ certFile: entry.certFile, keyFile: entry.keyFile });
  return {
    ...(trust.issuer ? { tokenEndpoint: trust.issuer.tokenEndpoint } : {}),
    ...(trust.pki
      ? {
          pki: {
            caFile: trust.pki.caFile,
            server: files(trust.pki.server),
            client: files(trust.pki.client),
            unauthorisedClient: files(trust.pki.unauthorisedClient),
            untrustedClient: files(trust.pki.untrustedClient),
            untrustedServer: files(trust.pki.untrustedServer),
          },
        }
      : {}),
  };
}
