// The test PKI for real TLS handshakes (auth mode `mtls`): generated per run with @peculiar/x509 on
// WebCrypto ECDSA P-256 (no hand-rolled ASN.1), never committed. One trusted CA issues a server
// certificate for 127.0.0.1/localhost and two client certificates (the authorised test principal and
// an authenticated but unauthorised one); an untrusted CA issues a client certificate whose subject is
// the authorised principal's, so only the chain tells them apart, and a server certificate for the
// same names as the trusted one (the client-side probes' hostile endpoint: only a client that checks
// the chain refuses it). Validity is wall-clock based (TLS
// stacks check it against the real time): one hour back, one day forward.
//
// Files are PEM in a fresh 0700 temp dir; private keys are 0600. `testPki()` caches the PKI per
// process in memory; `disposeTestPki()` removes the files (also attempted at process exit).

// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { tmpdir } from 'node:os';
import path from 'node:path';

import * as x509 from '@peculiar/x509';

import { CLIENT_PRINCIPAL } from './constants.ts';

/** The CN of a client certificate the trusted CA issued for a principal the servers do not authorise. */
export const UNAUTHORISED_CLIENT_PRINCIPAL = 'ahp-interop-unauthorised-client';

export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

export interface ClientCertificateFiles extends CertificateFiles {
  /** The certificate's subject CN. */
  principal: string;
}

export interface TestPki {
  /** The folder holding every file below (0700). */
  dir: string;
  /** The trusted CA certificate: servers verify clients with it, clients verify the server. */
  caFile: string;
  /** Server identity for 127.0.0.1 and localhost (SAN IP + DNS), issued by the trusted CA. */
  server: CertificateFiles;
  /** The authorised test client (`CN=ahp-interop-client`), issued by the trusted CA. */
  client: ClientCertificateFiles;
  /** A client the trusted CA issued but servers must not authorise (403, not a TLS failure). */
  unauthorisedClient: ClientCertificateFiles;
  /** A CA nobody trusts. */
  untrustedCaFile: string;
  /** A client certificate with the authorised principal's CN, issued by the untrusted CA. */
  untrustedClient: ClientCertificateFiles;
  /** A server identity for 127.0.0.1 and localhost, like `server`, issued by the untrusted CA. */
  untrustedServer: CertificateFiles;
  /** PEM text of every private key above, for the credential-hygiene scan. */
  privateKeysPem(): string[];
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const HOUR_MS = 3_600_000;

let providerSet = false;
function crypto(): webcrypto.Crypto {
  if (!providerSet) {
    // The library types WebCrypto with the DOM lib's `Crypto`; Node's webcrypto is that object at runtime.
    (x509.cryptoProvider.set as (value: unknown) => unknown).call(x509.cryptoProvider, webcrypto);
    providerSet = true;
  }
  return webcrypto;
}

interface Issued {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await crypto().subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function serialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01; // positive, non-zero leading byte
  return Buffer.from(bytes).toString('hex');
}

function validity(): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - HOUR_MS), notAfter: new Date(now + 24 * HOUR_MS) };
}

async function createCa(commonName: string): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${commonName}, O=AHP interop TEST-ONLY`,
    keys,
    signingAlgorithm: SIGNING,
    ...validity(),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

async function issue(ca: Issued, commonName: string, usage: 'server' | 'client'): Promise<Issued> {
  const keys = await keyPair();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth], false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
  ];
  if (usage === 'server') {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${commonName}, O=AHP interop TEST-ONLY`,
    issuer: ca.cert.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: SIGNING,
    ...validity(),
    extensions,
  });
  return { cert, keys };
}

async function privateKeyPem(keys: CryptoKeyPair): Promise<string> {
  const der = await crypto().subtle.exportKey('pkcs8', keys.privateKey);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** Generates a fresh PKI into a new temp folder under `parentDir` (default: the OS temp dir). */
export async function createTestPki(parentDir: string = tmpdir()): Promise<TestPki> {
  const ca = await createCa('AHP interop TEST-ONLY CA');
  const untrustedCa = await createCa('AHP interop TEST-ONLY untrusted CA');
  const [server, client, unauthorised, untrusted, untrustedServer] = await Promise.all([
    issue(ca, 'localhost', 'server'),
    issue(ca, CLIENT_PRINCIPAL, 'client'),
    issue(ca, UNAUTHORISED_CLIENT_PRINCIPAL, 'client'),
    issue(untrustedCa, CLIENT_PRINCIPAL, 'client'),
    issue(untrustedCa, 'localhost', 'server'),
  ]);

  const dir = mkdtempSync(path.join(parentDir, 'ahp-interop-pki-'));
  chmodSync(dir, 0o700);
  const writeCert = (name: string, cert: x509.X509Certificate): string => {
    const file = path.join(dir, name);
    writeFileSync(file, `${cert.toString('pem')}\n`, { mode: 0o644 });
    return file;
  };
  const keyFiles: string[] = [];
  const writeKey = async (name: string, keys: CryptoKeyPair): Promise<string> => {
    const file = path.join(dir, name);
    writeFileSync(file, `${await privateKeyPem(keys)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    keyFiles.push(file);
    return file;
  };
  const pair = async (name: string, issued: Issued): Promise<CertificateFiles> => ({
    certFile: writeCert(`${name}.crt.pem`, issued.cert),
    keyFile: await writeKey(`${name}.key.pem`, issued.keys),
  });

  const pki: TestPki = {
    dir,
    caFile: writeCert('ca.crt.pem', ca.cert),
    server: await pair('server', server),
    client: { ...(await pair('client', client)), principal: CLIENT_PRINCIPAL },
    unauthorisedClient: { ...(await pair('unauthorised-client', unauthorised)), principal: UNAUTHORISED_CLIENT_PRINCIPAL },
    untrustedCaFile: writeCert('untrusted-ca.crt.pem', untrustedCa.cert),
    untrustedClient: { ...(await pair('untrusted-client', untrusted)), principal: CLIENT_PRINCIPAL },
    untrustedServer: await pair('untrusted-server', untrustedServer),
    privateKeysPem: () => keyFiles.map((file) => readFileSync(file, 'utf8').trim()),
  };
  // The CA keys are never written: nothing but this function can issue under them.
  return pki;
}

let cached: Promise<TestPki> | undefined;
let cachedDir: string | undefined;

/** The per-process PKI: generated on first use, then reused. */
export function testPki(): Promise<TestPki> {
  if (!cached) {
    cached = createTestPki().then((pki) => {
      cachedDir = pki.dir;
      return pki;
    });
    cached.catch(() => (cached = undefined));
    process.once('exit', removeCachedDir);
  }
  return cached;
}

function removeCachedDir(): void {
  if (cachedDir) rmSync(cachedDir, { recursive: true, force: true });
  cachedDir = undefined;
}

/** Removes the per-process PKI's files; the next `testPki()` generates a new one. */
export async function disposeTestPki(): Promise<void> {
  const pending = cached;
  cached = undefined;
  if (pending) await pending.catch(() => undefined);
  removeCachedDir();
}

/** Removes a PKI made with `createTestPki`. */
export function removeTestPki(pki: Pick<TestPki, 'dir'>): void {
  rmSync(pki.dir, { recursive: true, force: true });
}
