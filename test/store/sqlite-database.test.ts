import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_LAYOUT_VERSION, openDatabase } from '../../src/store/sqlite/database.js';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `db-${++files}`, 'nested', 'racewire.db');

describe('openDatabase', () => {
  it('creates the directory and opens the file in WAL mode with synchronous NORMAL and a busy timeout', () => {
    const path = nextFile();
    const db = openDatabase(path, { busyTimeoutMs: 1234 });
    expect(existsSync(path)).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
    expect(db.pragma('user_version', { simple: true })).toBe(DATABASE_LAYOUT_VERSION);
    db.close();
  });

  it('refuses a file written by a newer layout', () => {
    const path = nextFile();
    const db = openDatabase(path);
    db.pragma(`user_version = ${DATABASE_LAYOUT_VERSION + 1}`);
    db.close();
    expect(() => openDatabase(path)).toThrow(expect.objectContaining({ code: 'schema_too_new' }));
  });

  it('lets another module keep its own tables beside the log in the same file', async () => {
    const db = openDatabase(nextFile());
    migrate(db, 'webhooks', ['CREATE TABLE webhook_endpoints (id TEXT PRIMARY KEY)']);
    createSqliteEventLog({ db });
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    // sqlite_sequence: the feed's AUTOINCREMENT never gives a trimmed position again.
    expect(tables).toEqual([
      'log_checkpoints',
      'log_entries',
      'log_feed',
      'log_meta',
      'log_streams',
      'schema_versions',
      'sqlite_sequence',
      'webhook_endpoints',
    ]);
    db.close();
  });
});

describe('migrate', () => {
  it('runs only the steps a component has not run yet, and records its version', () => {
    const db = openDatabase(nextFile());
    const ran: string[] = [];
    const steps = [
      () => ran.push('v1'),
      (d: typeof db) => {
        ran.push('v2');
        d.exec('CREATE TABLE t (x INTEGER)');
      },
    ];
    migrate(db, 'thing', steps.slice(0, 1));
    migrate(db, 'thing', steps);
    migrate(db, 'thing', steps);
    migrate(db, 'other', steps.slice(0, 1));
    expect(ran).toEqual(['v1', 'v2', 'v1']);
    expect(db.prepare('SELECT component, version FROM schema_versions ORDER BY component').all()).toEqual([
      { component: 'other', version: 1 },
      { component: 'thing', version: 2 },
    ]);
    db.close();
  });

  it('rolls back every step of a run when one fails', () => {
    const db = openDatabase(nextFile());
    expect(() => migrate(db, 'thing', ['CREATE TABLE a (x INTEGER)', 'NOT SQL'])).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'a'").all()).toEqual([]);
    expect(db.prepare('SELECT * FROM schema_versions').all()).toEqual([]);
    db.close();
  });

  it('refuses tables migrated by a newer racewire', () => {
    const db = openDatabase(nextFile());
    migrate(db, 'thing', ['SELECT 1', 'SELECT 2']);
    expect(() => migrate(db, 'thing', ['SELECT 1'])).toThrow(
      expect.objectContaining({ code: 'schema_too_new' }),
    );
    db.close();
  });
});
