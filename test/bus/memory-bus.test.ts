import { createMemoryBus } from '../../src/bus/bus.js';
import { busContract } from './bus.contract.js';

busContract('memory', async () => {
  const errors: unknown[] = [];
  return { bus: createMemoryBus((err) => errors.push(err)), errors, close: async () => {} };
});
