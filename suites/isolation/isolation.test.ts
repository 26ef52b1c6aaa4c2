import { defineIsolationSuite } from '../../harness/families/isolation/suite.ts';

// Sender isolation: each adapter's lifecycle client as sender against its own server, six cases.
await defineIsolationSuite();
