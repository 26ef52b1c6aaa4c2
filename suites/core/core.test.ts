import { defineMatrixSuite } from '../../harness/families/core/suite.ts';

// Every core scenario for every configured server→client pairing, transport and auth mode.
await defineMatrixSuite('core');
