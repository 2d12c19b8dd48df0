/**
 * The event log on SQLite (the default adapter). better-sqlite3 is synchronous, so every operation runs to
 * completion before the next starts: appends to a stream are serialised without locks in this process, and
 * BEGIN IMMEDIATE serialises them against any other connection to the file. Each appended event also goes
 * to the feed table `log_feed` in the same transaction, for the webhook outbox's feed reader.
 */
import { randomUUID } from 'node:crypto';
import type { EventEntry, LogEntry, StreamId } from '../../events/envelope.js';
import { EventLogError } from '../errors.js';
import { assertCount, checkRead, stampChange } from '../log-rules.js';
import type { EventFeed, EventLog, ReadResult, StreamHead } from '../ports.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';

export interface SqliteEventLogOptions {
  db: Database;
  /** Entries kept per stream; older ones are deleted in the same transaction as each append. */
  window?: number;
  /** Close `db` on close(): only for a handle this log was given to own. @default false */
  closeDatabase?: boolean;
}

/** The log's tables, namespaced `log_` beside other modules' tables in the same file. */
export const EVENT_LOG_MIGRATIONS = [
  `CREATE TABLE log_meta (
     key TEXT PRIMARY KEY,
     value TEXT NOT NULL
   );
   CREATE TABLE log_streams (
     stream TEXT PRIMARY KEY,
     epoch TEXT NOT NULL,
     seq INTEGER NOT NULL,
     document_seq INTEGER NOT NULL
   );
   -- Apart from log_streams so that an append of events only does not rewrite a 200 KB row.
   CREATE TABLE log_documents (
     stream TEXT PRIMARY KEY,
     document TEXT NOT NULL
   );
   CREATE TABLE log_entries (
     stream TEXT NOT NULL,
     seq INTEGER NOT NULL,
     entry TEXT NOT NULL,
     PRIMARY KEY (stream, seq)
   );`,
  // The feed: every appended event, in append order, until the webhook outbox has consumed it.
  `CREATE TABLE log_feed (
     position INTEGER PRIMARY KEY AUTOINCREMENT,
     entry TEXT NOT NULL
   );`,
] as const;

interface HeadRow {
  epoch: string;
  seq: number;
  document_seq: number;
}

export function createSqliteEventLog(opts: SqliteEventLogOptions): EventLog {
  const { db } = opts;
  if (opts.window !== undefined) assertCount('window', opts.window);
  migrate(db, 'event_log', EVENT_LOG_MIGRATIONS);

  // The log's epoch is made once with the tables: a wiped file gets a new one. Streams take it on first write,
  // so a stream's epoch is the one its head reported before it was written.
  db.prepare("INSERT OR IGNORE INTO log_meta (key, value) VALUES ('epoch', ?)").run(randomUUID());
  const epoch = (db.prepare("SELECT value FROM log_meta WHERE key = 'epoch'").get() as { value: string })
    .value;

  const sql = {
    head: db.prepare('SELECT epoch, seq, document_seq FROM log_streams WHERE stream = ?'),
    document: db.prepare('SELECT document FROM log_documents WHERE stream = ?').pluck(),
    oldest: db.prepare('SELECT MIN(seq) FROM log_entries WHERE stream = ?').pluck(),
    entries: db
      .prepare('SELECT entry FROM log_entries WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?')
      .pluck(),
    insertEntry: db.prepare('INSERT INTO log_entries (stream, seq, entry) VALUES (?, ?, ?)'),
    upsertHead: db.prepare(
      `INSERT INTO log_streams (stream, epoch, seq, document_seq) VALUES (?, ?, ?, ?)
       ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq, document_seq = excluded.document_seq`,
    ),
    upsertDocument: db.prepare(
      `INSERT INTO log_documents (stream, document) VALUES (?, ?)
       ON CONFLICT (stream) DO UPDATE SET document = excluded.document`,
    ),
    trimStream: db.prepare('DELETE FROM log_entries WHERE stream = ? AND seq <= ?'),
    heads: db.prepare('SELECT stream, seq FROM log_streams'),
    streams: db.prepare('SELECT stream FROM log_streams ORDER BY stream').pluck(),
    insertFeed: db.prepare('INSERT INTO log_feed (entry) VALUES (?)'),
    readFeed: db.prepare('SELECT position, entry FROM log_feed WHERE position > ? ORDER BY position LIMIT ?'),
    trimFeed: db.prepare('DELETE FROM log_feed WHERE position <= ?'),
  };

  let closed = false;
  const open = () => {
    if (closed) throw new EventLogError('log_closed', 'the event log is closed');
  };

  const headRow = (stream: StreamId) => sql.head.get(stream) as HeadRow | undefined;
  const fullHead = (stream: StreamId, row: HeadRow | undefined): StreamHead => {
    if (!row) return { stream, epoch, seq: 0, documentSeq: 0, document: undefined };
    const text = sql.document.get(stream) as string | undefined;
    return {
      stream,
      epoch: row.epoch,
      seq: row.seq,
      documentSeq: row.document_seq,
      document: text === undefined ? undefined : JSON.parse(text),
    };
  };

  const appendTx = db.transaction(
    (stream: StreamId, change: Parameters<EventLog['append']>[1]): LogEntry[] => {
      const row = headRow(stream);
      const stamped = stampChange(
        stream,
        row ? { seq: row.seq, documentSeq: row.document_seq } : { seq: 0, documentSeq: 0 },
        change,
      );
      if (stamped.entries.length === 0) return [];
      const stored: LogEntry[] = [];
      for (const entry of stamped.entries) {
        const json = JSON.stringify(entry);
        sql.insertEntry.run(stream, entry.seq, json);
        if (entry.kind === 'event') sql.insertFeed.run(json);
        stored.push(JSON.parse(json) as LogEntry);
      }
      const seq = stamped.entries.at(-1)!.seq;
      const documentSeq = stamped.documentSeq ?? row?.document_seq ?? 0;
      sql.upsertHead.run(stream, row?.epoch ?? epoch, seq, documentSeq);
      if (stamped.documentSeq !== undefined) sql.upsertDocument.run(stream, JSON.stringify(change.document));
      if (opts.window !== undefined) sql.trimStream.run(stream, seq - opts.window);
      return stored;
    },
  );

  const readTx = db.transaction(
    (stream: StreamId, afterSeq: number, readOpts: { epoch?: string; limit?: number }): ReadResult => {
      const row = headRow(stream);
      const oldest = sql.oldest.get(stream) as number | null;
      // The head (with its document) is only loaded to answer not-ok; the common read needs just the row.
      const head: StreamHead = row
        ? { stream, epoch: row.epoch, seq: row.seq, documentSeq: row.document_seq, document: undefined }
        : fullHead(stream, undefined);
      const refused = checkRead(head, oldest ?? undefined, afterSeq, readOpts);
      if (refused) return { ...refused, head: fullHead(stream, row) };
      const texts = sql.entries.all(stream, afterSeq, readOpts.limit ?? -1) as string[];
      return { ok: true, entries: texts.map((t) => JSON.parse(t) as LogEntry) };
    },
  );

  // Stream by stream so each delete is a range on the primary key, not a scan of every retained entry.
  const trimTx = db.transaction((keep: number) => {
    for (const { stream, seq } of sql.heads.all() as Array<{ stream: string; seq: number }>) {
      sql.trimStream.run(stream, seq - keep);
    }
  });

  const headTx = db.transaction((stream: StreamId) => fullHead(stream, headRow(stream)));

  const feed: EventFeed = {
    async read(after, limit) {
      open();
      const rows = sql.readFeed.all(after === '' ? 0 : Number(after), limit) as Array<{
        position: number;
        entry: string;
      }>;
      return rows.map((r) => ({ position: String(r.position), entry: JSON.parse(r.entry) as EventEntry }));
    },
    async trim(through) {
      open();
      sql.trimFeed.run(Number(through));
    },
  };

  return {
    async append(stream, change) {
      open();
      return appendTx.immediate(stream, change);
    },

    async head(stream) {
      open();
      return headTx(stream);
    },

    async read(stream, afterSeq, readOpts = {}) {
      open();
      assertCount('afterSeq', afterSeq);
      if (readOpts.limit !== undefined) assertCount('limit', readOpts.limit);
      return readTx(stream, afterSeq, readOpts);
    },

    async streams() {
      open();
      return sql.streams.all() as string[];
    },

    async trim(keep) {
      open();
      assertCount('keep', keep);
      trimTx.immediate(keep);
    },

    feed,

    async close() {
      if (closed) return;
      closed = true;
      if (opts.closeDatabase) db.close();
    },
  };
}
