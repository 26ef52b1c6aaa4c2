import { defineElicitationSuite } from '../../harness/families/elicitation/suite.ts';

// MCP elicitation on the real wire: every directed sender → receiver pair, one test per case.
await defineElicitationSuite();
