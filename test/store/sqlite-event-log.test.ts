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

  it('writes the feed in the append transaction: a rolled-back append leaves no feed item', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db });
    await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now });
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON log_entries WHEN NEW.seq = 4
      BEGIN SELECT RAISE(ABORT, 'disk refused'); END`);
    await expect(log.append('r1', { entries: [event('b'), event('c')], now })).rejects.toThrow(
      'disk refused',
    );
    const { epoch } = await log.head('r1');
    expect((await log.feed.read('', 10)).map((i) => i.entry.event.id)).toEqual([`r1:2@${epoch}`]);
    expect((await log.head('r1')).seq).toBe(2);
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

  it("stores an event's row without the entry's copy of stream, seq and timestamp, and reads it whole", async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db });
    const appended = await log.append('r1', { entries: [event('odds.changed', { to: 3.5 })], now });
    const row = db.prepare('SELECT entry FROM log_entries WHERE stream = ? AND seq = 1').pluck().get('r1');
    expect(JSON.parse(row as string)).toEqual({
      kind: 'event',
      event: appended[0]!.kind === 'event' && appended[0]!.event,
    });
    const read = await log.read('r1', 0);
    expect(read.ok && read.entries).toEqual(appended);
    expect(Object.keys((read.ok && read.entries[0]) || {})).toEqual([
      'kind',
      'stream',
      'seq',
      'timestamp',
      'event',
    ]);
  });

  it('reads event rows written whole before', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db });
    const appended = await log.append('r1', { entries: [event('runner.scratched', { n: 4 })], now });
    db.prepare('UPDATE log_entries SET entry = ? WHERE stream = ? AND seq = 1').run(
      JSON.stringify(appended[0]),
      'r1',
    );
    const read = await log.read('r1', 0);
    expect(read.ok && read.entries).toEqual(appended);
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
