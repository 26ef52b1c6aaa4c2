import { defineMatrixSuite } from '../../harness/setup/matrix-suite.ts';

// Every core scenario for every configured server→client pairing, transport and auth mode.
await defineMatrixSuite('core');
