/**
 * Opens racewire's SQLite file: one handle shared by the event log, the webhook outbox and whatever else
 * keeps state, so that one transaction can span them (an event and its deliveries commit together).
 *
 * WAL with synchronous=NORMAL: a commit is in the WAL file (written with write(2), not yet fsynced) when it
 * returns, so it survives a crash or kill -9 of the process; only an OS crash or power loss can lose the
 * last commits, never corrupt the file. test/store/sqlite-crash.test.ts checks the kill -9 half.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { EventLogError } from '../errors.js';

export type Database = BetterSqlite3.Database;

export interface OpenDatabaseOptions {
  /** How long a write waits for another connection's write lock before failing. @default 5000 */
  busyTimeoutMs?: number;
}

/**
 * The file's layout version, in `PRAGMA user_version`. Version 1: components keep their own schema
 * versions in `schema_versions` (see migrate.ts), so each module migrates its own tables independently.
 */
export const DATABASE_LAYOUT_VERSION = 1;

/**
 * Opens (creating the directory and file if needed) and prepares the database at `path`. The file holds
 * webhook secrets: a new directory is made 0700 and a new file 0600 (SQLite gives its -wal and -shm files
 * the database file's mode), whatever the umask; existing ones keep the mode their operator gave them.
 */
export function openDatabase(path: string, opts: OpenDatabaseOptions = {}): Database {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // 'a' creates the file with this mode only if it is not there; the umask can only narrow 0600.
    closeSync(openSync(path, 'a', 0o600));
  }
  const db = new BetterSqlite3(path, { timeout: opts.busyTimeoutMs ?? 5000 });
  try {
    // A new file gives deleted pages back (event log retention runs `PRAGMA incremental_vacuum`); on a file
    // made before, this is a no-op and freed pages are reused instead.
    db.pragma('auto_vacuum = INCREMENTAL');
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw new Error(`could not switch ${path} to WAL (journal_mode is ${String(mode)})`);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    upgradeLayout(db, path);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function upgradeLayout(db: Database, path: string): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > DATABASE_LAYOUT_VERSION) {
      throw new EventLogError(
        'schema_too_new',
        `${path} has layout version ${version}; this racewire knows up to ${DATABASE_LAYOUT_VERSION}`,
      );
    }
    if (version < 1) {
      db.exec(`CREATE TABLE IF NOT EXISTS schema_versions (
        component TEXT PRIMARY KEY,
        version INTEGER NOT NULL
      )`);
      db.pragma(`user_version = ${DATABASE_LAYOUT_VERSION}`);
    }
  }).immediate();
}
