/**
 * The store module's public exports, and where a SQLite log lives in DATA_DIR. Which store a node runs on is
 * the backend's choice (src/backend/index.ts, the one registry of drivers).
 */
import { join } from 'node:path';
import type { EventLog } from './ports.js';
import { openDatabase } from './sqlite/database.js';
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

/** The SQLite file inside DATA_DIR. */
export const databasePath = (dataDir: string): string => join(dataDir, 'racewire.db');

/** The SQLite log in DATA_DIR on its own, owning its file (tools and tests that read a node's data). */
export const openSqliteEventLog = (dataDir: string, window: number): EventLog =>
  createSqliteEventLog({ db: openDatabase(databasePath(dataDir)), window, closeDatabase: true });
