import { defineClientProbeSuite } from '../../harness/families/auth/suite.ts';

// Client-side credential probes: every configured client adapter × credentialed auth mode.
await defineClientProbeSuite();
