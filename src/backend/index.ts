/** The backend of each driver (config STORE), chosen through a record rather than a branch. */
import type { BackendFactory, Driver } from './ports.js';
import { redisBackend } from './redis.js';
import { memoryBackend, sqliteBackend } from './single-node.js';

export type { Backend, BackendFactory, BackendOptions, Driver, NodeStatus } from './ports.js';

export const backends: Record<Driver, BackendFactory> = {
  memory: memoryBackend,
  sqlite: sqliteBackend,
  redis: redisBackend,
};
