// Worker threads on Node 20 do not inherit tsx's loader for their entry
// module, so this plain-JS entry registers it and then loads the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./parse-worker.ts');
