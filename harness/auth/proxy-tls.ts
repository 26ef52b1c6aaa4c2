import type { ProxyTlsFiles } from '../runs/client-run.ts';
import type { TestPki } from './pki.ts';

/**
 * What the harness's HTTP forwarding proxy needs of the run's test PKI to stand in for an mtls
 * server: the CA, the server identity, and every client identity a client may present (the
 * authorised and the unauthorised principal; the untrusted one is refused at the handshake).
 */
export function proxyTlsFiles(pki: TestPki): ProxyTlsFiles {
  return {
    caFile: pki.caFile,
    server: { certFile: pki.server.certFile, keyFile: pki.server.keyFile },
    clients: [pki.client, pki.unauthorisedClient].map(({ certFile, keyFile }) => ({ certFile, keyFile })),
  };
}
