/** The backend of each driver (config STORE), chosen through a record rather than a branch. */
import type { Config } from '../config.js';
import type { BackendFactory, Driver } from './ports.js';
import { redisBackend } from './redis.js';
import { memoryBackend, sqliteBackend } from './single-node.js';

export type { Backend, BackendFactory, BackendOptions, Driver, NodeStatus } from './ports.js';

export interface BackendDriver {
  open: BackendFactory;
  /**
   * The directory the driver keeps its data in across restarts, checked writable before the start (the
   * embedded upstream keeps its clock's instant there too), or undefined when nothing outlives the process
   * on this node.
   */
  dataDir(config: Pick<Config, 'DATA_DIR'>): string | undefined;
}

/** The one registry of drivers. */
export const backends: Record<Driver, BackendDriver> = {
  memory: { open: memoryBackend, dataDir: () => undefined },
  sqlite: { open: sqliteBackend, dataDir: (config) => config.DATA_DIR },
  redis: { open: redisBackend, dataDir: () => undefined },
};
