// The simulator worker's entry: Node 20's workers do not take `--import tsx` from execArgv, so it registers
// tsx's loader itself, then loads the TypeScript worker (simulator-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./simulator-worker.ts');
