// The auth family's two suites: raw-wire endpoint-authentication probes of every server, and
// credential probes of every client pointed at a hostile endpoint. Each has its own test file, so
// `--project auth suites/auth/<file>` runs one of them.
export { defineClientProbeSuite } from './client-probes-suite.ts';
export { defineEndpointProbeSuite } from './probes-suite.ts';
