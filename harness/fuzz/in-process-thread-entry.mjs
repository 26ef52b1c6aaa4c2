// Worker-thread entry of in-process-threads.ts: the TypeScript worker needs tsx's loader in this
// thread too (plain JavaScript, so the thread can start it).
import { register } from 'tsx/esm/api';

register();
const worker = await import('./in-process-thread-worker.ts');
export default worker.default;
