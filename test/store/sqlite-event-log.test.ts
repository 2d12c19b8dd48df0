import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';
import { event, eventLogContract, eventLogModelContract, snapshot } from './event-log.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-sqlite-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `log-${++files}`, 'racewire.db');

eventLogContract('sqlite', async ({ window }) => {
  const path = nextFile();
  const log = createSqliteEventLog({ db: openDatabase(path), window, closeDatabase: true });
  return {
    log,
    reopen: async () => {
      await log.close();
      return createSqliteEventLog({ db: openDatabase(path), window, closeDatabase: true });
    },
  };
});

describe('sqlite event log', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');

  it('commits what onAppend writes together with the entries', async () => {
    const db = openDatabase(nextFile());
    db.exec('CREATE TABLE deliveries (event_id TEXT PRIMARY KEY)');
    const insert = db.prepare('INSERT INTO deliveries (event_id) VALUES (?)');
    const log = createSqliteEventLog({
      db,
      onAppend: (entries) => {
        for (const e of entries) if (e.kind === 'event') insert.run(e.event.id);
      },
    });
    await log.append('r1', {
      entries: [snapshot({ v: 1 }), event('a'), event('b')],
      document: { v: 1 },
      now,
    });
    expect(db.prepare('SELECT event_id FROM deliveries ORDER BY event_id').pluck().all()).toEqual([
      'r1:2',
      'r1:3',
    ]);
    db.close();
  });

  it('rolls the append and onAppend writes back together when onAppend throws', async () => {
    const db = openDatabase(nextFile());
    db.exec('CREATE TABLE deliveries (event_id TEXT PRIMARY KEY)');
    const insert = db.prepare('INSERT INTO deliveries (event_id) VALUES (?)');
    let fail = false;
    const log = createSqliteEventLog({
      db,
      onAppend: (entries) => {
        for (const e of entries) if (e.kind === 'event') insert.run(e.event.id);
        if (fail) throw new Error('outbox refused');
      },
    });
    await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now });
    fail = true;
    await expect(
      log.append('r1', { entries: [snapshot({ v: 2 }), event('b')], document: { v: 2 }, now }),
    ).rejects.toThrow('outbox refused');
    const head = await log.head('r1');
    expect([head.seq, head.documentSeq, head.document]).toEqual([2, 1, { v: 1 }]);
    expect(db.prepare('SELECT event_id FROM deliveries').pluck().all()).toEqual(['r1:2']);
    fail = false;
    const next = await log.append('r1', { entries: [event('c')], now });
    expect(next[0]?.seq).toBe(3);
    db.close();
  });

  it('lets onAppend use its own nested transaction', async () => {
    const db = openDatabase(nextFile());
    db.exec('CREATE TABLE deliveries (event_id TEXT PRIMARY KEY)');
    const insertAll = db.transaction((ids: string[]) => {
      for (const id of ids) db.prepare('INSERT INTO deliveries (event_id) VALUES (?)').run(id);
    });
    const log = createSqliteEventLog({
      db,
      onAppend: (entries) => insertAll(entries.flatMap((e) => (e.kind === 'event' ? [e.event.id] : []))),
    });
    await log.append('r1', { entries: [event('a'), event('b')], now });
    expect(db.prepare('SELECT count(*) FROM deliveries').pluck().get()).toBe(2);
    db.close();
  });

  it('refuses an asynchronous onAppend and appends nothing', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, onAppend: async () => {} });
    await expect(log.append('r1', { entries: [event('a')], now })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect((await log.head('r1')).seq).toBe(0);
    db.close();
  });

  it('gives a new file a new epoch and keeps it across reopen', async () => {
    const path = nextFile();
    const first = openDatabase(path);
    const epoch = (await createSqliteEventLog({ db: first }).head('r1')).epoch;
    first.close();
    const again = openDatabase(path);
    expect((await createSqliteEventLog({ db: again }).head('r1')).epoch).toBe(epoch);
    again.close();
    const other = openDatabase(nextFile());
    expect((await createSqliteEventLog({ db: other }).head('r1')).epoch).not.toBe(epoch);
    other.close();
  });

  it('leaves a shared database open on close unless told to own it', async () => {
    const db = openDatabase(nextFile());
    await createSqliteEventLog({ db }).close();
    expect(db.open).toBe(true);
    await createSqliteEventLog({ db, closeDatabase: true }).close();
    expect(db.open).toBe(false);
  });
});

eventLogModelContract('sqlite', async ({ window }) => ({
  log: createSqliteEventLog({ db: openDatabase(nextFile()), window, closeDatabase: true }),
}));
