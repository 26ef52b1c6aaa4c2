import { defineLifecycleSuite } from '../../harness/families/lifecycle/suite.ts';

// Every lifecycle row for every server→client pairing with lifecycle commands, transport and auth mode.
await defineLifecycleSuite();
