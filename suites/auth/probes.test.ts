import { defineEndpointProbeSuite } from '../../harness/families/auth/suite.ts';

// Raw-wire endpoint-authentication probes: every configured server adapter × auth mode.
await defineEndpointProbeSuite();
