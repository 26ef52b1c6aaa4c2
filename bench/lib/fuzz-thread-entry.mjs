// Worker entry: TypeScript needs tsx's loader in this thread too.
import { register } from 'tsx/esm/api';

register();
await import('./fuzz-thread-worker.ts');
