import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SQLite files hold secrets', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates the data directory 0700 and the database, its WAL and shared memory 0600, whatever the umask', () => {
    root = mkdtempSync(join(tmpdir(), 'racewire-modes-'));
    const dir = join(root, 'data', 'nested');
    const path = join(dir, 'racewire.db');
    const umask = process.umask(0o022); // the common default, which would give 0755 and 0644
    try {
      const db = openDatabase(path);
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      expect([mode(join(root, 'data')), mode(dir)]).toEqual([0o700, 0o700]);
      expect([path, `${path}-wal`, `${path}-shm`].map(mode)).toEqual([0o600, 0o600, 0o600]);
      db.close();
      // Opening again keeps the file and its contents.
      const again = openDatabase(path);
      expect(again.prepare('SELECT x FROM t').pluck().get()).toBe(1);
      again.close();
    } finally {
      process.umask(umask);
    }
  });
});
