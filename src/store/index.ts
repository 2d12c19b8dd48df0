/**
 * Store selection: one factory per driver (config STORE), chosen through a record rather than a branch, and
 * the store module's public exports.
 */
import { join } from 'node:path';
import { createMemoryEventLog } from './memory-event-log.js';
import type { EventLog } from './ports.js';
import { type Database, openDatabase } from './sqlite/database.js';
import { createSqliteEventLog } from './sqlite/sqlite-event-log.js';

export { EventLogError, type EventLogErrorCode } from './errors.js';
export { createMemoryEventLog, type MemoryEventLogOptions } from './memory-event-log.js';
export {
  type EventFeed,
  type EventLog,
  type ExpireResult,
  FEED_START,
  type FeedItem,
  type ReadResult,
  type RetentionPolicy,
  type StreamHead,
} from './ports.js';
export { type Database, type OpenDatabaseOptions, openDatabase } from './sqlite/database.js';
export { type Migration, migrate } from './sqlite/migrate.js';
export { createSqliteEventLog, type SqliteEventLogOptions } from './sqlite/sqlite-event-log.js';

export type StoreDriver = 'memory' | 'sqlite';

export interface EventLogFactoryOptions {
  /** Entries kept per stream (config EVENT_LOG_WINDOW). */
  window: number;
  /** Where the SQLite file lives (config DATA_DIR); unused by memory. */
  dataDir: string;
  /**
   * SQLite: a handle opened by the caller to share with other modules (the webhook outbox); the caller then
   * closes it. When absent, the log opens `<dataDir>/racewire.db` itself and closes it on close().
   */
  db?: Database;
}

/** The SQLite file inside DATA_DIR. */
export const databasePath = (dataDir: string): string => join(dataDir, 'racewire.db');

export const eventLogFactories: Record<StoreDriver, (opts: EventLogFactoryOptions) => EventLog> = {
  memory: ({ window }) => createMemoryEventLog({ window }),
  sqlite: ({ window, dataDir, db }) =>
    createSqliteEventLog({
      db: db ?? openDatabase(databasePath(dataDir)),
      window,
      closeDatabase: db === undefined,
    }),
};

export const createEventLog = (driver: StoreDriver, opts: EventLogFactoryOptions): EventLog =>
  eventLogFactories[driver](opts);
