// Corpus cases for portable registration documents: both transports, both authentication presets,
// both subscription modes with wildcards, content selection and upload configuration, and one
// invalid document for each rule the schema states. Backend id uniqueness and everything that
// depends on a host's manifest are not schema rules (the registration evaluator checks them), so a
// duplicate backend id and an unadvertised event are valid here.

import { bad, ok, without, type Case, type Obj } from './case.ts';

const http: Obj = { type: 'http', url: 'https://hooks.corpus.example/ahp' };
const stdio: Obj = { type: 'stdio', command: 'corpus-hook', args: ['--serve'], lifecycle: 'per_event', cwd: '/opt/corpus' };
const observeSub = (extra: Obj = {}): Obj => ({ events: ['turn.*', 'file.changed'], mode: 'observe', content: { default: 'omit', reasoning: 'metadata' }, ...extra });
const interceptSub = (extra: Obj = {}): Obj => ({
  events: ['tool.before', 'model.*'],
  mode: 'intercept',
  timeoutMs: 250,
  failurePolicy: 'fail-open',
  content: { default: 'metadata', images: 'omit', 'com.example.diagrams': 'body' },
  ...extra,
});
const backend = (extra: Obj = {}): Obj => ({ id: 'com.example.corpus', transport: http, subscriptions: [interceptSub(), observeSub()], ...extra });
const doc = (hooks: unknown[], extra: Obj = {}): Obj => ({ protocolVersion: 'draft', hooks: hooks as Obj[], ...extra });
const valid = (name: string, value: unknown): Case => ok('registration', name, value);
const invalid = (name: string, value: unknown): Case => bad('registration', name, value);

const bearer = (extra: Obj = {}): Obj => ({ type: 'bearer', ...extra });
const oauth = (extra: Obj = {}): Obj => ({
  type: 'oauth',
  resource: 'https://hooks.corpus.example/ahp',
  issuer: 'https://issuer.corpus.example',
  clientId: 'corpus-client',
  flow: 'client_credentials',
  scopes: ['hooks:write'],
  ...extra,
});
const upload = (extra: Obj = {}): Obj => ({ endpoint: 'https://uploads.corpus.example/bytes', timeoutMs: 5000, maxBytes: 0, ...extra });

export function registrationCases(): Case[] {
  return [
    valid('HTTP backend with intercept and observe subscriptions', doc([backend()])),
    valid('stdio backend without authentication', doc([backend({ id: 'org.example.local', transport: stdio })])),
    valid('bearer token from an environment variable', doc([backend({ authentication: bearer({ tokenEnv: 'CORPUS_TOKEN' }) })])),
    valid('bearer token from a secret reference', doc([backend({ authentication: bearer({ tokenRef: 'secrets/corpus' }) })])),
    valid('OAuth preset with a client secret reference', doc([backend({ authentication: oauth({ clientSecretRef: 'secrets/oauth', flow: 'authorization_code_pkce' }) })])),
    valid('every event, every family wildcard', doc([backend({ subscriptions: [observeSub({ events: ['*'] }), interceptSub({ events: ['tool.*'] })] })])),
    valid('managed scope that cannot be disabled, with filters and native payloads', doc([backend({ subscriptions: [interceptSub({ scope: 'managed', disableable: false, includeNative: true, filters: { toolKinds: ['shell'], paths: ['native'] } })] })])),
    valid('upload to a loopback http endpoint with its own credentials', doc([backend({ subscriptions: [observeSub({ upload: upload({ endpoint: 'http://127.0.0.1:9000/up', auth: bearer({ tokenEnv: 'UPLOAD_TOKEN' }) }) })] })])),
    valid('unknown members everywhere are ignored', doc([backend({ note: 'x', subscriptions: [observeSub({ id: 'local-label' })] })], { comment: 'y' })),
    valid('duplicate backend ids (not a schema rule)', doc([backend(), backend()])),
    valid('observe hook.failure (advertisement is checked by the host, not the schema)', doc([backend({ subscriptions: [observeSub({ events: ['hook.failure'] })] })])),

    invalid('no hooks', doc([])),
    invalid('wrong protocol version', doc([backend()], { protocolVersion: '1.0' })),
    invalid('without protocol version', without(doc([backend()]), 'protocolVersion')),
    invalid('backend id that is not reverse-DNS', doc([backend({ id: 'corpus' })])),
    invalid('backend without subscriptions', doc([backend({ subscriptions: [] })])),
    invalid('backend with a contentReceiver', doc([backend({ contentReceiver: { url: 'https://x.example', timeoutMs: 1, maxBytes: 1 } })])),
    invalid('unknown transport type', doc([backend({ transport: { type: 'grpc', url: 'https://x.example' } })])),
    invalid('HTTP transport with a non-http URL', doc([backend({ transport: { type: 'http', url: 'ftp://x.example' } })])),
    invalid('stdio transport without lifecycle', doc([backend({ transport: without(stdio, 'lifecycle') })])),
    invalid('stdio backend with authentication', doc([backend({ transport: stdio, authentication: bearer({ tokenEnv: 'CORPUS_TOKEN' }) })])),
    invalid('bearer with both tokenEnv and tokenRef', doc([backend({ authentication: bearer({ tokenEnv: 'A', tokenRef: 'secrets/a' }) })])),
    invalid('bearer with neither tokenEnv nor tokenRef', doc([backend({ authentication: bearer() })])),
    invalid('bearer tokenEnv that is not a variable name', doc([backend({ authentication: bearer({ tokenEnv: '1-TOKEN' }) })])),
    invalid('OAuth issuer over plain http', doc([backend({ authentication: oauth({ issuer: 'http://issuer.corpus.example' }) })])),
    invalid('OAuth without flow', doc([backend({ authentication: without(oauth(), 'flow') })])),
    invalid('unknown authentication type', doc([backend({ authentication: { type: 'mtls' } })])),
    invalid('intercept without failurePolicy', doc([backend({ subscriptions: [without(interceptSub(), 'failurePolicy')] })])),
    invalid('intercept without timeoutMs', doc([backend({ subscriptions: [without(interceptSub(), 'timeoutMs')] })])),
    invalid('intercept with timeoutMs 0', doc([backend({ subscriptions: [interceptSub({ timeoutMs: 0 })] })])),
    invalid('intercept of an observe-only event (model.error)', doc([backend({ subscriptions: [interceptSub({ events: ['model.error'] })] })])),
    invalid('observe with timeoutMs', doc([backend({ subscriptions: [observeSub({ timeoutMs: 100 })] })])),
    invalid('observe with failurePolicy', doc([backend({ subscriptions: [observeSub({ failurePolicy: 'fail-closed' })] })])),
    invalid('subscription without content', doc([backend({ subscriptions: [without(observeSub(), 'content')] })])),
    invalid('content without default', doc([backend({ subscriptions: [observeSub({ content: { text: 'body' } })] })])),
    invalid('content category with a value outside the enum', doc([backend({ subscriptions: [observeSub({ content: { default: 'body', images: 'thumbnail' } })] })])),
    invalid('an arbitrary event pattern', doc([backend({ subscriptions: [observeSub({ events: ['tool.be*'] })] })])),
    invalid('an unknown event name', doc([backend({ subscriptions: [observeSub({ events: ['tool.teleport'] })] })])),
    invalid('duplicate events in one subscription', doc([backend({ subscriptions: [observeSub({ events: ['turn.start', 'turn.start'] })] })])),
    invalid('unknown mode', doc([backend({ subscriptions: [observeSub({ mode: 'audit' })] })])),
    invalid('managed scope without disableable', doc([backend({ subscriptions: [interceptSub({ scope: 'managed' })] })])),
    invalid('managed scope that can be disabled', doc([backend({ subscriptions: [interceptSub({ scope: 'managed', disableable: true })] })])),
    invalid('upload to a non-loopback http endpoint', doc([backend({ subscriptions: [observeSub({ upload: upload({ endpoint: 'http://uploads.corpus.example/bytes' }) })] })])),
    invalid('upload without maxBytes', doc([backend({ subscriptions: [observeSub({ upload: without(upload(), 'maxBytes') })] })])),
    invalid('a registration that is an array', [backend()]),
  ];
}
