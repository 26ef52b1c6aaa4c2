// The reference adapter's elicitation entry point (ELICITATION-RULES §2-§5):
//   node launch.mjs elicitation.ts server <schemaDir> authenticated:<lang>   the receiver
//   node launch.mjs elicitation.ts check <schemaDir> authenticated:<lang>    the atomic helper
//   node launch.mjs elicitation.ts client                                    the sender, one step
// The binding comes from AHP_ELICITATION_BINDING (upload, the default, or inline).

import { runElicitationAdapter } from './elicitation/adapter-main.ts';

runElicitationAdapter(process.argv.slice(2));
