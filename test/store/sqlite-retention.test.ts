/**
 * Retention of the SQLite log reads the streams still holding something (`retained`, through the partial
 * index log_streams_retained), not every row of log_streams: a forgotten stream keeps its row for its seq.
 * What retention does to a stream is the contract's (test/store/event-log.contract.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packDocument } from '../../src/store/sqlite/checkpoints.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { createSqliteEventLog, EVENT_LOG_MIGRATIONS } from '../../src/store/sqlite/sqlite-event-log.js';
import { event, snapshot } from './entry-builders.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-sqlite-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `log-${++files}.db`);
const at = (iso: string) => new Date(`2026-11-${iso}Z`);
/** Settled before the 21st, forgotten before the 15th. */
const policy = { settledBefore: at('21T00:00:00'), forgetBefore: at('15T00:00:00') };
const retained = (db: ReturnType<typeof openDatabase>) =>
  db.prepare('SELECT stream FROM log_streams WHERE retained = 1 ORDER BY stream').pluck().all();

describe('SQLite retention reads the retained streams', () => {
  it('keeps a stream retained while it holds entries or a document, through the partial index', async () => {
    const db = openDatabase(nextFile());
    const log = createSqliteEventLog({ db });
    const write = (stream: string, day: string, document?: unknown) =>
      log.append(stream, {
        entries: document === undefined ? [event('a')] : [snapshot(document), event('a')],
        document,
        now: at(`${day}T10:00:00`),
      });
    await write('r-old', '10', { v: 1 });
    await write('r-mid', '20', { v: 1 });
    await write('r-new', '22', { v: 1 });
    await write('events-only', '20');
    expect(retained(db)).toEqual(['events-only', 'r-mid', 'r-new', 'r-old']);

    expect(await log.expire(policy)).toEqual({ settled: 2, forgotten: 1 });
    // r-mid keeps its document until the forget cutoff passes it; events-only, settled, holds nothing.
    expect(retained(db)).toEqual(['r-mid', 'r-new']);
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT stream, seq, document_seq, checkpoint_seq, updated_at FROM log_streams
         WHERE retained = 1 AND updated_at < ?`,
      )
      .all(0) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toContain('log_streams_retained');

    // Written again, a forgotten stream is retained again and goes on numbering.
    await write('r-old', '23', { v: 2 });
    expect(retained(db)).toEqual(['r-mid', 'r-new', 'r-old']);
    expect((await log.head('r-old')).seq).toBe(4);
    db.close();
  });

  it('migrates a file of the previous layout: only the streams holding something are retained', async () => {
    const path = nextFile();
    const before = openDatabase(path);
    migrate(before, 'event_log', EVENT_LOG_MIGRATIONS.slice(0, -1));
    before.prepare("INSERT INTO log_meta (key, value) VALUES ('epoch', 'e1')").run();
    const head = before.prepare(
      `INSERT INTO log_streams (stream, epoch, seq, document_seq, checkpoint_seq, patches_since, updated_at)
       VALUES (?, 'e1', 2, ?, ?, 0, ?)`,
    );
    // As the version before's pass left them: r-old forgotten (its row kept), r-mid settled (its document
    // kept), r-live with its entries.
    head.run('r-old', 0, 0, at('10T10:00:00').getTime());
    head.run('r-mid', 1, 1, at('20T10:00:00').getTime());
    head.run('r-live', 1, 1, at('22T10:00:00').getTime());
    const checkpoint = before.prepare('INSERT INTO log_checkpoints VALUES (?, 1, 1, ?)');
    checkpoint.run('r-mid', packDocument('{"v":1}'));
    checkpoint.run('r-live', packDocument('{"v":1}'));
    before
      .prepare('INSERT INTO log_entries VALUES (?, ?, ?)')
      .run('r-live', 2, JSON.stringify({ kind: 'event' }));
    before.close();

    const db = openDatabase(path);
    const log = createSqliteEventLog({ db });
    expect(retained(db)).toEqual(['r-live', 'r-mid']);
    expect(await log.expire({ ...policy, forgetBefore: policy.settledBefore })).toEqual({
      settled: 0,
      forgotten: 1,
    });
    expect(retained(db)).toEqual(['r-live']);
    db.close();
  });
});
