/**
 * The SQLite log keeps documents as compressed checkpoints and rebuilds the head from the newest one and the
 * patches after it. These tests hold it to the promise that a reader gets the same bytes as were appended.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { createSqliteEventLog, EVENT_LOG_MIGRATIONS } from '../../src/store/sqlite/sqlite-event-log.js';
import { diffDocuments } from '../../src/watch/track/diff.js';
import { normaliseEvent } from '../../src/watch/track/normalise.js';
import { resumedState, trackRace } from '../../src/watch/track/track-race.js';
import { mutate, mutationArb } from '../watch/mutations.js';
import { realPayload } from '../watch/support.js';
import { event, patch, snapshot, T0 } from './entry-builders.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-checkpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `log-${++files}`, 'racewire.db');

const base = realPayload();
const checkpointRows = (db: ReturnType<typeof openDatabase>) =>
  db.prepare('SELECT seq, snapshot FROM log_checkpoints ORDER BY seq').all();

describe('sqlite checkpoints', () => {
  // Member order is not a change (no op): a head rebuilt after upstream re-ordered members keeps the order every
  // subscriber following the patches holds, so the property is deep equality, and bytes for what is replayable.
  it('gives back the head document and every snapshot as appended, through any run of changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(mutationArb, { maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, checkpointEvery) => {
          const path = nextFile();
          const log = createSqliteEventLog({ db: openDatabase(path), closeDatabase: true, checkpointEvery });
          let payload = base;
          let prev: ReturnType<typeof normaliseEvent> | undefined;
          const snapshots = new Map<number, string>();
          for (const step of steps) {
            payload = mutate(payload, step);
            const result = trackRace(prev && resumedState(prev), payload, T0.getTime());
            if (result.outcome.kind !== 'changed' || !result.state) continue;
            const stored = await log.append('r1', {
              entries: result.entries,
              document: result.state.document,
              now: T0,
            });
            for (const e of stored)
              if (e.kind === 'snapshot') snapshots.set(e.seq, JSON.stringify(e.document));
            prev = result.state.document;
            expect((await log.head('r1')).document).toEqual(prev);
          }
          await log.close();
          const again = createSqliteEventLog({
            db: openDatabase(path),
            closeDatabase: true,
            checkpointEvery,
          });
          expect((await again.head('r1')).document).toEqual(prev);
          const read = await again.read('r1', 0);
          for (const e of read.ok ? read.entries : []) {
            if (e.kind === 'snapshot') expect(JSON.stringify(e.document)).toBe(snapshots.get(e.seq));
          }
          await again.close();
        },
      ),
      { numRuns: 10 },
    );
  });

  it('gives back the head document with the bytes appended when no change re-orders members', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, checkpointEvery: 4 });
    type Doc = {
      runners: Record<string, { odds: Record<string, number>; flucs?: number[]; is_scratched?: boolean }>;
    };
    let prev = normaliseEvent(base) as unknown as Doc;
    await log.append('r1', { entries: [snapshot(prev)], document: prev, now: T0 });
    const ids = Object.keys(prev.runners);
    for (let i = 0; i < 10; i++) {
      const next = structuredClone(prev);
      const runner = next.runners[ids[i % ids.length]!]!;
      runner.odds.fixed_win = 2 + i;
      runner.flucs?.push(2 + i);
      if (i === 5) runner.is_scratched = true;
      await log.append('r1', {
        entries: [{ kind: 'patch', ops: diffDocuments(prev, next) }],
        document: next,
        now: T0,
      });
      expect(JSON.stringify((await log.head('r1')).document)).toBe(JSON.stringify(next));
      prev = next;
    }
    // Replayed patches, not the document, made those heads: one checkpoint every 4 patches beside the snapshot.
    expect(checkpointRows(db)).toEqual([
      { seq: 1, snapshot: 1 },
      { seq: 9, snapshot: 0 },
    ]);
    db.close();
  });

  it('stores a first document once and checkpoints the head only every N patches', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, checkpointEvery: 3 });
    await log.append('r1', {
      entries: [snapshot({ v: 0, list: [] })],
      document: { v: 0, list: [] },
      now: T0,
    });
    const row = db.prepare('SELECT entry FROM log_entries WHERE seq = 1').pluck().get() as string;
    expect(JSON.parse(row)).toEqual({ kind: 'snapshot', stream: 'r1', seq: 1, timestamp: T0.toISOString() });
    for (let v = 1; v <= 7; v++) {
      await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: v }]), event('tick')],
        document: { v, list: [] },
        now: T0,
      });
    }
    // Patches at seqs 2, 4, ..., 14: the third and sixth are checkpoints; the snapshot's stays with its entry.
    expect(checkpointRows(db)).toEqual([
      { seq: 1, snapshot: 1 },
      { seq: 12, snapshot: 0 },
    ]);
    expect(await log.head('r1')).toMatchObject({ seq: 15, documentSeq: 14, document: { v: 7, list: [] } });
    db.close();
  });

  it('stores patches packed and events as text, and still reads patch rows written as text before', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, checkpointEvery: 100 });
    const prices = Array.from({ length: 40 }, (_, i) => ({ runner: i, price: 4 + i / 10 }));
    await log.append('r1', { entries: [snapshot({ v: 0, prices })], document: { v: 0, prices }, now: T0 });
    for (let v = 1; v <= 3; v++) {
      await log.append('r1', {
        entries: [
          patch([{ op: 'replace', path: '/prices', value: prices.map((p) => ({ ...p, v })) }]),
          event('tick'),
        ],
        document: { v: 0, prices: prices.map((p) => ({ ...p, v })) },
        now: T0,
      });
    }
    const rows = db
      .prepare('SELECT seq, typeof(entry) AS type, length(entry) AS bytes FROM log_entries ORDER BY seq')
      .all() as Array<{ seq: number; type: string; bytes: number }>;
    expect(rows.map((r) => r.type)).toEqual(['text', 'blob', 'text', 'blob', 'text', 'blob', 'text']);
    const appended = await log.read('r1', 0);
    // A row of the previous layout: the patch at seq 4 as JSON text.
    const text = JSON.stringify(appended.ok && appended.entries[3]);
    expect(rows[3]!.bytes).toBeLessThan(text.length / 2);
    db.prepare('UPDATE log_entries SET entry = ? WHERE seq = 4').run(text);
    expect(await log.read('r1', 0)).toEqual(appended);
    expect((await log.head('r1')).document).toEqual({ v: 0, prices: prices.map((p) => ({ ...p, v: 3 })) });
    db.close();
  });

  it('checkpoints at once a patch whose replay could order keys differently', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, checkpointEvery: 100 });
    const first = { a: 1, c: 3 };
    const second = { a: 1, b: 2, c: 3 }; // replaying add /b would give {a, c, b}
    await log.append('r1', { entries: [snapshot(first)], document: first, now: T0 });
    await log.append('r1', {
      entries: [{ kind: 'patch', ops: diffDocuments(first, second) }],
      document: second,
      now: T0,
    });
    expect(checkpointRows(db)).toEqual([
      { seq: 1, snapshot: 1 },
      { seq: 2, snapshot: 0 },
    ]);
    expect(JSON.stringify((await log.head('r1')).document)).toBe('{"a":1,"b":2,"c":3}');
    const third = { a: 1, b: 2, c: 3, d: 4 }; // added last, where replay puts it: no checkpoint
    await log.append('r1', {
      entries: [{ kind: 'patch', ops: diffDocuments(second, third) }],
      document: third,
      now: T0,
    });
    expect(checkpointRows(db)).toHaveLength(2);
    expect(JSON.stringify((await log.head('r1')).document)).toBe('{"a":1,"b":2,"c":3,"d":4}');
    db.close();
  });

  it('checkpoints the head before a window trim would take the patches it is rebuilt from', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db, window: 3, checkpointEvery: 100 });
    await log.append('r1', { entries: [snapshot({ v: 0 })], document: { v: 0 }, now: T0 });
    await log.append('r1', {
      entries: [patch([{ op: 'replace', path: '/v', value: 1 }])],
      document: { v: 1 },
      now: T0,
    });
    for (let i = 0; i < 3; i++) await log.append('r1', { entries: [event('tick')], now: T0 });
    expect(checkpointRows(db)).toEqual([{ seq: 2, snapshot: 0 }]);
    expect(await log.head('r1')).toMatchObject({ seq: 5, documentSeq: 2, document: { v: 1 } });
    db.close();
  });

  it('migrates a file of the previous layout: head documents become checkpoints, old snapshots read as before', async () => {
    const path = nextFile();
    const old = openDatabase(path);
    migrate(old, 'event_log', EVENT_LOG_MIGRATIONS.slice(0, 2));
    const snapshotEntry = {
      kind: 'snapshot',
      stream: 'r1',
      seq: 1,
      timestamp: T0.toISOString(),
      document: { v: 1 },
    };
    old.prepare("INSERT INTO log_meta (key, value) VALUES ('epoch', 'e1')").run();
    old.prepare("INSERT INTO log_streams VALUES ('r1', 'e1', 2, 2)").run();
    old.prepare("INSERT INTO log_documents VALUES ('r1', '{\"v\":2}')").run();
    old.prepare('INSERT INTO log_entries VALUES (?, ?, ?)').run('r1', 1, JSON.stringify(snapshotEntry));
    old.prepare('INSERT INTO log_entries VALUES (?, ?, ?)').run(
      'r1',
      2,
      JSON.stringify({
        kind: 'patch',
        stream: 'r1',
        seq: 2,
        timestamp: T0.toISOString(),
        base: 1,
        ops: [],
      }),
    );
    old.close();
    const db = openDatabase(path);
    const log = createSqliteEventLog({ db });
    expect(await log.head('r1')).toEqual({
      stream: 'r1',
      epoch: 'e1',
      seq: 2,
      documentSeq: 2,
      document: { v: 2 },
    });
    const read = await log.read('r1', 0);
    expect(read.ok && read.entries[0]).toEqual(snapshotEntry);
    expect(db.prepare('SELECT updated_at FROM log_streams').pluck().get()).toBe(T0.getTime());
    db.close();
  });
});
