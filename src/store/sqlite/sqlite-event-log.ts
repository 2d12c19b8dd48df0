/**
 * The event log on SQLite (the default adapter). better-sqlite3 is synchronous, so every operation runs to
 * completion before the next starts: appends to a stream are serialised without locks in this process, and
 * BEGIN IMMEDIATE serialises them against any other connection to the file. Each appended event also goes
 * to the feed table `log_feed` in the same transaction, for the webhook outbox's feed reader.
 *
 * Documents live in `log_checkpoints`, compressed, once each: a snapshot entry's document is its checkpoint
 * (the entry row holds the rest), and the head document is checkpointed every `checkpointEvery` patches and
 * otherwise rebuilt from the newest checkpoint and the patches after it (`checkpoints.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { Operation } from 'fast-json-patch';
import type { EventEntry, LogEntry, StreamId } from '../../events/envelope.js';
import { EventLogError } from '../errors.js';
import { assertCount, checkRead, stampChange } from '../log-rules.js';
import type { EventFeed, EventLog, ExpireResult, ReadResult, StreamHead } from '../ports.js';
import {
  applyPatches,
  checkpointDue,
  DEFAULT_CHECKPOINT_EVERY,
  packDocument,
  unpackDocument,
} from './checkpoints.js';
import type { Database } from './database.js';
import { migrate } from './migrate.js';

export interface SqliteEventLogOptions {
  db: Database;
  /** Entries kept per stream; older ones are deleted in the same transaction as each append. */
  window?: number;
  /** Close `db` on close(): only for a handle this log was given to own. @default false */
  closeDatabase?: boolean;
  /** Patches between checkpoints of a head document. @default DEFAULT_CHECKPOINT_EVERY (32) */
  checkpointEvery?: number;
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
  // Documents once each and compressed: checkpoints instead of the head document rewritten on every change.
  (db: Database) => {
    db.exec(`CREATE TABLE log_checkpoints (
       stream TEXT NOT NULL,
       seq INTEGER NOT NULL,
       snapshot INTEGER NOT NULL,
       document BLOB NOT NULL,
       PRIMARY KEY (stream, seq)
     );
     ALTER TABLE log_streams ADD COLUMN checkpoint_seq INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE log_streams ADD COLUMN patches_since INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE log_streams ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;`);
    const insert = db.prepare(
      'INSERT INTO log_checkpoints (stream, seq, snapshot, document) VALUES (?, ?, 0, ?)',
    );
    const rows = db
      .prepare(
        'SELECT d.stream, s.document_seq, d.document FROM log_documents d JOIN log_streams s USING (stream)',
      )
      .all() as Array<{ stream: string; document_seq: number; document: string }>;
    for (const row of rows) insert.run(row.stream, row.document_seq, packDocument(row.document));
    // A stream's last append time, from its newest entry (snapshot entries written before keep their document).
    db.exec(`UPDATE log_streams SET checkpoint_seq = document_seq, updated_at = COALESCE((
       SELECT CAST(ROUND((julianday(json_extract(e.entry, '$.timestamp')) - 2440587.5) * 86400000) AS INTEGER)
       FROM log_entries e WHERE e.stream = log_streams.stream ORDER BY e.seq DESC LIMIT 1), 0);
     DROP TABLE log_documents;`);
  },
  // Retention reads the streams still holding entries or a document, not every stream ever written (a
  // forgotten stream keeps its row for its seq): `retained` 1 from an append until a pass leaves it empty.
  `ALTER TABLE log_streams ADD COLUMN retained INTEGER NOT NULL DEFAULT 1;
   UPDATE log_streams SET retained = (document_seq <> 0
     OR EXISTS (SELECT 1 FROM log_entries e WHERE e.stream = log_streams.stream));
   CREATE INDEX log_streams_retained ON log_streams (updated_at) WHERE retained = 1;`,
] as const;

/**
 * An entry row: JSON text, or for a patch its JSON packed as checkpoints are (a patch of a real race is about
 * 9 kB of text and 1.6 kB packed: bench/log-bytes.ts). Events stay text: the feed and the outbox read them.
 */
type EntryRow = string | Buffer;
const entryText = (row: EntryRow): string => (typeof row === 'string' ? row : unpackDocument(row));

/**
 * An event's row leaves out the entry's stream, seq and timestamp: the event carries the same three
 * (stampChange), and events are most of the log's bytes (111 of an `odds.changed` row's 925 B:
 * docs/benchmarks.md). Rows written with them before still read.
 */
const eventRow = (entry: Extract<LogEntry, { kind: 'event' }>): string =>
  JSON.stringify({ kind: 'event', event: entry.event });

function readEntry(text: string): LogEntry {
  const entry = JSON.parse(text) as LogEntry;
  if (entry.kind !== 'event' || entry.stream !== undefined) return entry;
  const { stream, seq, timestamp } = entry.event;
  return { kind: 'event', stream, seq, timestamp, event: entry.event };
}

interface HeadRow {
  epoch: string;
  seq: number;
  document_seq: number;
  checkpoint_seq: number;
  patches_since: number;
}

/** Where a head's document is: its version and the checkpoint it is rebuilt from. */
type DocumentPosition = Pick<HeadRow, 'document_seq' | 'checkpoint_seq'>;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: an adapter of the event log port: its methods share the prepared statements and each is short
export function createSqliteEventLog(opts: SqliteEventLogOptions): EventLog {
  const { db } = opts;
  if (opts.window !== undefined) assertCount('window', opts.window);
  const checkpointEvery = opts.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
  if (!Number.isSafeInteger(checkpointEvery) || checkpointEvery < 1) {
    throw new EventLogError(
      'invalid_argument',
      `checkpointEvery must be a positive integer, got ${checkpointEvery}`,
    );
  }
  migrate(db, 'event_log', EVENT_LOG_MIGRATIONS);

  // The log's epoch is made once with the tables: a wiped file gets a new one. Streams take it on first write,
  // so a stream's epoch is the one its head reported before it was written.
  db.prepare("INSERT OR IGNORE INTO log_meta (key, value) VALUES ('epoch', ?)").run(randomUUID());
  const epoch = (db.prepare("SELECT value FROM log_meta WHERE key = 'epoch'").get() as { value: string })
    .value;

  const sql = {
    head: db.prepare(
      'SELECT epoch, seq, document_seq, checkpoint_seq, patches_since FROM log_streams WHERE stream = ?',
    ),
    checkpoint: db.prepare('SELECT document FROM log_checkpoints WHERE stream = ? AND seq = ?').pluck(),
    // Patches are the packed rows (text rows before packing start with their kind: stampChange builds them
    // so), which picks them out unparsed.
    patchesBetween: db
      .prepare(
        `SELECT entry FROM log_entries WHERE stream = ? AND seq > ? AND seq <= ?
         AND (typeof(entry) = 'blob' OR entry LIKE '{"kind":"patch"%') ORDER BY seq`,
      )
      .pluck(),
    oldest: db.prepare('SELECT MIN(seq) FROM log_entries WHERE stream = ?').pluck(),
    entries: db.prepare(
      `SELECT e.entry, c.document FROM log_entries e
       LEFT JOIN log_checkpoints c ON c.stream = e.stream AND c.seq = e.seq AND c.snapshot = 1
       WHERE e.stream = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    ),
    insertEntry: db.prepare('INSERT INTO log_entries (stream, seq, entry) VALUES (?, ?, ?)'),
    upsertHead: db.prepare(
      `INSERT INTO log_streams (stream, epoch, seq, document_seq, checkpoint_seq, patches_since, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq, document_seq = excluded.document_seq,
         checkpoint_seq = excluded.checkpoint_seq, patches_since = excluded.patches_since,
         updated_at = excluded.updated_at, retained = 1`,
    ),
    setCheckpoint: db.prepare(
      'UPDATE log_streams SET checkpoint_seq = ?, patches_since = 0 WHERE stream = ?',
    ),
    insertCheckpoint: db.prepare(
      'INSERT OR REPLACE INTO log_checkpoints (stream, seq, snapshot, document) VALUES (?, ?, ?, ?)',
    ),
    // A checkpoint that is no snapshot's document is only needed until a newer one exists.
    dropOlderCheckpoints: db.prepare(
      'DELETE FROM log_checkpoints WHERE stream = ? AND seq < ? AND snapshot = 0',
    ),
    trimStream: db.prepare('DELETE FROM log_entries WHERE stream = ? AND seq <= ?'),
    // A snapshot's checkpoint goes with its entry, unless it is the head's.
    trimCheckpoints: db.prepare('DELETE FROM log_checkpoints WHERE stream = ? AND seq <= ? AND seq <> ?'),
    heads: db.prepare('SELECT stream, seq, document_seq, checkpoint_seq FROM log_streams'),
    streams: db.prepare('SELECT stream FROM log_streams ORDER BY stream').pluck(),
    // Through the partial index log_streams_retained: the streams still holding something, not all ever written.
    idle: db.prepare(
      `SELECT stream, seq, document_seq, checkpoint_seq, updated_at FROM log_streams
       WHERE retained = 1 AND updated_at < ?`,
    ),
    forgetCheckpoints: db.prepare('DELETE FROM log_checkpoints WHERE stream = ?'),
    forgetHead: db.prepare(
      `UPDATE log_streams SET document_seq = 0, checkpoint_seq = 0, patches_since = 0, retained = 0
       WHERE stream = ?`,
    ),
    unretain: db.prepare('UPDATE log_streams SET retained = 0 WHERE stream = ?'),
    insertFeed: db.prepare('INSERT INTO log_feed (entry) VALUES (?)'),
    readFeed: db.prepare('SELECT position, entry FROM log_feed WHERE position > ? ORDER BY position LIMIT ?'),
    trimFeed: db.prepare('DELETE FROM log_feed WHERE position <= ?'),
  };

  let closed = false;
  const open = () => {
    if (closed) throw new EventLogError('log_closed', 'the event log is closed');
  };

  const headRow = (stream: StreamId) => sql.head.get(stream) as HeadRow | undefined;

  /** The document at `document_seq`: the newest checkpoint with the patches after it applied. */
  const rebuild = (stream: StreamId, row: DocumentPosition): unknown => {
    if (row.document_seq === 0) return undefined;
    const blob = sql.checkpoint.get(stream, row.checkpoint_seq) as Buffer | undefined;
    if (!blob)
      throw new EventLogError('corrupt_state', `${stream}: checkpoint ${row.checkpoint_seq} is missing`);
    const base = JSON.parse(unpackDocument(blob));
    if (row.document_seq === row.checkpoint_seq) return base;
    const rows = sql.patchesBetween.all(stream, row.checkpoint_seq, row.document_seq) as EntryRow[];
    return applyPatches(
      base,
      rows.map((r) => (JSON.parse(entryText(r)) as { ops: Operation[] }).ops),
    );
  };

  const fullHead = (stream: StreamId, row: HeadRow | undefined): StreamHead => {
    if (!row) return { stream, epoch, seq: 0, documentSeq: 0, document: undefined };
    return {
      stream,
      epoch: row.epoch,
      seq: row.seq,
      documentSeq: row.document_seq,
      document: rebuild(stream, row),
    };
  };

  const writeCheckpoint = (stream: StreamId, seq: number, json: string, snapshot: boolean) => {
    sql.insertCheckpoint.run(stream, seq, snapshot ? 1 : 0, packDocument(json));
    sql.dropOlderCheckpoints.run(stream, seq);
  };

  /**
   * Trims a stream to the entries after `through`. The patches the head is rebuilt from must stay, so when the
   * trim would reach them the head is checkpointed first (`document` when the caller has it at hand).
   */
  const trimTo = (stream: StreamId, through: number, row: DocumentPosition, document?: unknown) => {
    let checkpointSeq = row.checkpoint_seq;
    if (through > checkpointSeq && row.document_seq > checkpointSeq) {
      writeCheckpoint(stream, row.document_seq, JSON.stringify(document ?? rebuild(stream, row)), false);
      sql.setCheckpoint.run(row.document_seq, stream);
      checkpointSeq = row.document_seq;
    }
    sql.trimStream.run(stream, through);
    sql.trimCheckpoints.run(stream, through, checkpointSeq);
  };

  const appendTx = db.transaction(
    (stream: StreamId, change: Parameters<EventLog['append']>[1]): LogEntry[] => {
      const row = headRow(stream);
      const stamped = stampChange(
        stream,
        row
          ? { seq: row.seq, documentSeq: row.document_seq, epoch: row.epoch }
          : { seq: 0, documentSeq: 0, epoch },
        change,
      );
      if (stamped.entries.length === 0) return [];
      let checkpointSeq = row?.checkpoint_seq ?? 0;
      let patchesSince = row?.patches_since ?? 0;
      const stored: LogEntry[] = [];
      for (const entry of stamped.entries) {
        if (entry.kind === 'snapshot') {
          // The document is stored once, as the checkpoint at the snapshot's seq; the row holds the rest.
          const { document, ...rest } = entry;
          const json = JSON.stringify(document);
          sql.insertEntry.run(stream, entry.seq, JSON.stringify(rest));
          writeCheckpoint(stream, entry.seq, json, true);
          stored.push({ ...rest, document: JSON.parse(json) });
          checkpointSeq = entry.seq;
          patchesSince = 0;
          continue;
        }
        const json = JSON.stringify(entry);
        const row =
          entry.kind === 'patch' ? packDocument(json) : entry.kind === 'event' ? eventRow(entry) : json;
        sql.insertEntry.run(stream, entry.seq, row);
        if (entry.kind === 'event') sql.insertFeed.run(json);
        stored.push(JSON.parse(json) as LogEntry);
        if (entry.kind !== 'patch') continue;
        patchesSince++;
        if (checkpointDue(patchesSince, checkpointEvery, entry.ops, change.document)) {
          writeCheckpoint(stream, entry.seq, JSON.stringify(change.document), false);
          checkpointSeq = entry.seq;
          patchesSince = 0;
        }
      }
      const seq = stamped.entries.at(-1)!.seq;
      const documentSeq = stamped.documentSeq ?? row?.document_seq ?? 0;
      sql.upsertHead.run(
        stream,
        row?.epoch ?? epoch,
        seq,
        documentSeq,
        checkpointSeq,
        patchesSince,
        change.now.getTime(),
      );
      const head = { document_seq: documentSeq, checkpoint_seq: checkpointSeq };
      if (opts.window !== undefined) trimTo(stream, seq - opts.window, head, change.document);
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
      const rows = sql.entries.all(stream, afterSeq, readOpts.limit ?? -1) as Array<{
        entry: EntryRow;
        document: Buffer | null;
      }>;
      return {
        ok: true,
        entries: rows.map((r) => {
          const entry = readEntry(entryText(r.entry));
          // A snapshot written before checkpoints keeps its document in its row.
          if (r.document !== null && entry.kind === 'snapshot' && !('document' in entry)) {
            (entry as { document: unknown }).document = JSON.parse(unpackDocument(r.document));
          }
          return entry;
        }),
      };
    },
  );

  type HeadPosition = { stream: string; seq: number; document_seq: number; checkpoint_seq: number };

  // Stream by stream so each delete is a range on the primary key, not a scan of every retained entry.
  const trimTx = db.transaction((keep: number) => {
    for (const row of sql.heads.all() as HeadPosition[]) trimTo(row.stream, row.seq - keep, row);
  });

  const expireTx = db.transaction((settledBefore: number, forgetBefore: number): ExpireResult => {
    const result = { settled: 0, forgotten: 0 };
    for (const row of sql.idle.all(settledBefore) as Array<HeadPosition & { updated_at: number }>) {
      const hasEntries = sql.oldest.get(row.stream) !== null;
      if (row.updated_at < forgetBefore && (hasEntries || row.document_seq !== 0)) {
        sql.trimStream.run(row.stream, row.seq);
        sql.forgetCheckpoints.run(row.stream);
        sql.forgetHead.run(row.stream);
        result.forgotten++;
        continue;
      }
      if (hasEntries) {
        trimTo(row.stream, row.seq, row);
        result.settled++;
      }
      // Settled with no document, or found empty: nothing left for a later pass.
      if (row.document_seq === 0) sql.unretain.run(row.stream);
    }
    return result;
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

    async expire(policy) {
      open();
      const result = expireTx.immediate(policy.settledBefore.getTime(), policy.forgetBefore.getTime());
      // Give the freed pages back to the file system (a no-op on a file made before auto_vacuum was set).
      if (result.settled + result.forgotten > 0) db.pragma('incremental_vacuum');
      return result;
    },

    feed,

    async close() {
      if (closed) return;
      closed = true;
      if (opts.closeDatabase) db.close();
    },
  };
}
