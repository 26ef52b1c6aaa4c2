// The allow-list of principals, a policy the contract's server config does not carry
// (harness/auth/allow-list.ts): the adapter.json key that declares it is read and validated like `auth`,
// the harness hands it over only to a server that declares it, the probes that need it are skipped
// otherwise, and the reference server applies it exactly when it is given one. The end-to-end proof (a
// server that checks only the contract's fields, and one that declares the list and ignores it) is
// auth-weak-servers.test.ts.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { prepareServerAuth, type ServerAuth } from '../../adapters/reference/auth.ts';
import { AdapterConfigError, loadServerConfig } from '../../adapters/reference/lib/config.ts';
import { checkRequestAuth } from '../../adapters/reference/lib/request-auth.ts';
import { AdapterError, loadAdapter } from '../../harness/adapters/adapter-manifest.ts';
import type { LoadedAdapter } from '../../harness/adapters/types.ts';
import { allowListServerConfig, allowListSkipReason, AUTH_ALLOW_LIST_EXTENSION, readsAllowList } from '../../harness/auth/allow-list.ts';
import { serverAuthSettings } from '../../harness/auth/auth-settings.ts';
import { CLIENT_PRINCIPAL } from '../../harness/auth/constants.ts';
import { mintToken } from '../../harness/auth/jwt.ts';
import { probeCases, probeSkipReason, type ProbeTarget } from '../../harness/families/auth/probes.ts';
import { AUTH_MODES, type AuthMode } from '../../harness/config/define-config.ts';
import { referenceAdapter } from './support/child-vitest-run.ts';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ahp-allow-list-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function load(fields: Record<string, unknown>, name = 'sdk'): LoadedAdapter {
  const cwd = path.join(tmp, name);
  const adapterFile = path.join(cwd, 'interop', 'adapter.json');
  mkdirSync(path.dirname(adapterFile), { recursive: true });
  writeFileSync(adapterFile, JSON.stringify({ language: 'python', server: ['s'], client: ['c'], ...fields }));
  return loadAdapter({ name, cwd, adapterFile });
}

function loadError(fields: Record<string, unknown>): AdapterError {
  try {
    load(fields, 'bad');
  } catch (error) {
    expect(error).toBeInstanceOf(AdapterError);
    return error as AdapterError;
  }
  throw new Error('expected an AdapterError');
}

const reference = (): LoadedAdapter => {
  const entry = referenceAdapter();
  return loadAdapter({ ...entry, adapterFile: path.join(entry.cwd, 'interop', 'adapter.json') });
};

describe('adapter.json `authAllowList` (our documented extension)', () => {
  test('absent: no declaration, nothing kept', () => {
    expect('authAllowList' in load({}).manifest).toBe(false);
  });

  test('a list of modes with an identity is kept as declared, also beside a declared `auth`', () => {
    expect(load({ authAllowList: ['mtls', 'oauth'] }).manifest.authAllowList).toEqual(['mtls', 'oauth']);
    expect(load({ auth: ['none', 'workload'], authAllowList: ['workload'] }).manifest.authAllowList).toEqual(['workload']);
  });

  test.each([
    ['not an array', 'oauth', 'authAllowList', /expected a non-empty array of the auth modes \(oauth, workload, mtls\) in which the server reads the harness's allow-list of principals; omit the key when it reads none, got "oauth"/],
    ['empty', [], 'authAllowList', /expected a non-empty array of the auth modes .*, got /],
    ['a mode without an identity', ['oauth', 'bearer'], 'authAllowList[1]', /expected one of oauth, workload, mtls \(the modes with an authenticated identity\), got "bearer"/],
    ['an unknown mode', ['kerberos'], 'authAllowList[0]', /expected one of oauth, workload, mtls .*, got "kerberos"/],
    ['a non-string', [true], 'authAllowList[0]', /got boolean true/],
    ['a duplicate', ['mtls', 'mtls'], 'authAllowList[1]', /duplicate auth mode "mtls"/],
  ])('%s is an error naming the file and the field', (_what, authAllowList, field, pattern) => {
    const error = loadError({ authAllowList });
    expect(error.field).toBe(field);
    expect(error.file).toBe(path.join(tmp, 'bad', 'interop', 'adapter.json'));
    expect(error.message).toContain(`${error.file}: ${field}: `);
    expect(error.message).toMatch(pattern);
  });

  test("a mode the adapter's own `auth` list leaves out is an error", () => {
    const error = loadError({ auth: ['none', 'oauth'], authAllowList: ['oauth', 'mtls'] });
    expect(error.field).toBe('authAllowList[1]');
    expect(error.message).toMatch(/auth mode "mtls" is not in this adapter's "auth" list \(none, oauth\): expected only modes it implements/);
  });

  test('the reference adapter declares every mode with an identity', () => {
    expect(reference().manifest.authAllowList).toEqual(['oauth', 'workload', 'mtls']);
  });
});

describe('what the harness hands a server, and which probes run', () => {
  const declaring = (): LoadedAdapter => load({ authAllowList: ['oauth', 'mtls'] }, 'declaring');
  const silent = (): LoadedAdapter => load({}, 'silent');

  test('the server config carries the extension only for a declared mode', () => {
    const adapter = declaring();
    expect(allowListServerConfig(adapter, 'oauth')).toEqual({ extensions: { [AUTH_ALLOW_LIST_EXTENSION]: { principals: [CLIENT_PRINCIPAL] } } });
    expect(allowListServerConfig(adapter, 'mtls')).toEqual({ extensions: { 'ahp-conformance/auth-allow-list': { principals: ['ahp-interop-client'] } } });
    for (const mode of ['none', 'bearer', 'workload'] as const) expect(allowListServerConfig(adapter, mode), mode).toEqual({});
    for (const mode of AUTH_MODES) expect(allowListServerConfig(silent(), mode), mode).toEqual({});
  });

  test('exactly the unauthorised-subject and unauthorised-principal probes need the allow-list', () => {
    const needing = AUTH_MODES.flatMap((mode) => probeCases(mode).filter((probe) => probe.needs === 'allow-list').map((probe) => `${mode}/${probe.name}`));
    expect(needing).toEqual(['oauth/unauthorised-subject', 'mtls/unauthorised-principal', 'workload/unauthorised-subject']);
  });

  test('a probe that needs the list is skipped with the reason unless the server declares it; every other probe runs', () => {
    const target = (server: LoadedAdapter, mode: AuthMode, skip?: string): ProbeTarget => ({ server, mode, key: `${server.name}/${mode}`, ...(skip ? { skip } : {}) });
    for (const mode of AUTH_MODES) {
      for (const probe of probeCases(mode)) {
        const needs = probe.needs === 'allow-list';
        const silentReason = probeSkipReason(target(silent(), mode), probe);
        expect(silentReason, `${mode}/${probe.name}`).toBe(needs ? allowListSkipReason(silent(), mode) : undefined);
        const runsForDeclaring = !needs || readsAllowList(declaring(), mode);
        expect(probeSkipReason(target(declaring(), mode), probe) === undefined, `${mode}/${probe.name}`).toBe(runsForDeclaring);
      }
    }
    expect(allowListSkipReason(silent(), 'oauth')).toBe(
      'unsupported: adapter "silent" does not declare auth mode "oauth" in interop/adapter.json authAllowList, so its server is given no allow-list ' +
        "of principals (the contract's server config names none) and is not required to refuse an authenticated one",
    );
    // The target's own skip (an unsupported mode) wins over the policy's.
    const [subject] = probeCases('workload').filter((probe) => probe.needs);
    expect(probeSkipReason(target(declaring(), 'workload', 'unsupported: mode'), subject!)).toBe('unsupported: mode');
  });
});

describe('the reference server applies the allow-list exactly when it is given one', () => {
  function serverConfig(extra: Record<string, unknown>): string {
    const file = path.join(tmp, `server-config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ transport: 'http', readinessFile: 'ready.json', scenarioFile: 's.json', auth: serverAuthSettings('oauth'), ...extra }));
    return file;
  }

  function configError(extra: Record<string, unknown>): string {
    const file = serverConfig(extra);
    try {
      loadServerConfig(file);
    } catch (error) {
      expect(error).toBeInstanceOf(AdapterConfigError);
      expect((error as Error).message.startsWith(`${file}: `)).toBe(true);
      return (error as Error).message;
    }
    throw new Error('expected an AdapterConfigError');
  }

  const authOf = (extra: Record<string, unknown>): ServerAuth => {
    const plan = prepareServerAuth('http', loadServerConfig(serverConfig(extra)).auth);
    if (plan.kind !== 'supported') throw new Error(plan.reason);
    return plan.auth;
  };
  const bearer = async (sub: string) => ({ rawHeaders: ['Authorization', `Bearer ${await mintToken('oauth', { sub })}`], socket: undefined as never });

  test('without the extension every authenticated subject is authorised (the contract alone)', async () => {
    const auth = authOf({});
    expect(await checkRequestAuth(auth, await bearer('someone-else'))).toEqual({ ok: true });
    expect(await checkRequestAuth(auth, await bearer(CLIENT_PRINCIPAL))).toEqual({ ok: true });
    // Extensions it does not know are ignored.
    expect(await checkRequestAuth(authOf({ extensions: { 'another/extension': true } }), await bearer('someone-else'))).toEqual({ ok: true });
  });

  test('with the extension an unlisted subject gets 403, a listed one passes', async () => {
    const auth = authOf(allowListServerConfig(reference(), 'oauth'));
    expect(await checkRequestAuth(auth, await bearer('someone-else'))).toMatchObject({ ok: false, status: 403 });
    expect(await checkRequestAuth(auth, await bearer(CLIENT_PRINCIPAL))).toEqual({ ok: true });
  });

  test.each([
    ['extensions not an object', { extensions: ['x'] }, '"extensions" must be an object mapping extension names to their settings'],
    ['the entry not an object', { extensions: { [AUTH_ALLOW_LIST_EXTENSION]: ['a'] } }, `"extensions["${AUTH_ALLOW_LIST_EXTENSION}"]" must be an object {principals: [...]}`],
    ['principals empty', { extensions: { [AUTH_ALLOW_LIST_EXTENSION]: { principals: [] } } }, `"extensions["${AUTH_ALLOW_LIST_EXTENSION}"].principals" must be a non-empty array of non-empty strings`],
    ['a principal not a string', { extensions: { [AUTH_ALLOW_LIST_EXTENSION]: { principals: ['a', 3] } } }, '.principals" must be a non-empty array of non-empty strings'],
  ])('a malformed allow-list (%s) is a bad config naming the file and the field', (_what, extra, expected) => {
    expect(configError(extra)).toContain(expected);
  });
});
