import { defineCatalogueSuite } from '../../harness/families/catalogue/suite.ts';

// Every catalogue row for every server→client pairing with lifecycle commands, transport and auth mode.
await defineCatalogueSuite();
