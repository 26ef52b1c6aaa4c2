import { defineCompactionSuite } from '../../harness/families/compaction/suite.ts';

// The compaction wire matrix: each sender's host against each receiver, HTTP and stdio, per case and probe request.
await defineCompactionSuite();
