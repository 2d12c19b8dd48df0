/**
 * Storage ports. Adapters: memory (tests), SQLite (default, in DATA_DIR), Redis (several nodes). One contract
 * suite (`test/store/event-log.contract.ts`) runs against every adapter.
 */
import type { EventEntry, LogEntry, NewEntry, StreamId } from '../events/envelope.js';

/** The head of a stream: where it is and the document clients rebuild. */
export interface StreamHead {
  stream: StreamId;
  /**
   * Identifies this incarnation of the stream's log. It changes when the log is reset (for example a wiped
   * DATA_DIR), so a client holding a seq from another epoch knows its position means nothing here.
   */
  epoch: string;
  /** Seq of the last entry of any kind (0 when the stream has none). */
  seq: number;
  /** Seq of the last snapshot or patch: the version of `document`. 0 when there is no document yet. */
  documentSeq: number;
  /** The normalised document at `documentSeq`; undefined when none was stored yet. */
  document: unknown;
}

export type ReadResult =
  | { ok: true; entries: LogEntry[] }
  /** The requested position is older than the retained window, or from another epoch. */
  | { ok: false; reason: 'too_old' | 'epoch_mismatch'; head: StreamHead };

/** One appended event as the log's feed holds it: `position` orders the feed (opaque, increasing). */
export interface FeedItem {
  position: string;
  entry: EventEntry;
}

/**
 * Every event the log appends, in append order, written in the append's own transaction (SQLite) or script
 * (Redis), so an event is in the feed if and only if it is in the log. Its one reader is the webhook
 * outbox, which keeps its own cursor and trims what it has consumed; nothing else removes items.
 */
export interface EventFeed {
  /** Items after `after` (`FEED_START` for the beginning), oldest first, at most `limit`. */
  read(after: string, limit: number): Promise<FeedItem[]>;
  /** Forgets the items at or before `through`. */
  trim(through: string): Promise<void>;
}

/**
 * How long the log keeps what it no longer needs to serve, by the time of each stream's last append (the
 * `now` of that append: race time). Config `EVENT_LOG_SETTLED_HOURS` and `EVENT_LOG_RETAIN_DAYS`.
 */
export interface RetentionPolicy {
  /** A stream last written before this is settled: its entries go, its head and document stay. */
  settledBefore: Date;
  /**
   * A stream last written before this is forgotten: its document goes too. Its seq and epoch stay (a few
   * bytes), so a stream written again continues its numbering and no event id is ever given twice.
   */
  forgetBefore: Date;
}

/** What one `expire` removed: streams newly settled and newly forgotten. */
export interface ExpireResult {
  settled: number;
  forgotten: number;
}

/** The position before every feed item, on every adapter. */
export const FEED_START = '';

export interface EventLog {
  /**
   * Appends one change atomically: numbers `entries` from head.seq + 1 in the given order, stamps them with
   * `now`, stores them, and, when `document` is given, makes it the stream's document at the seq of the
   * snapshot or patch among them. Event ids become `<stream>:<seq>`; a patch's `base` becomes the previous
   * documentSeq. Either all of it is durable when the promise resolves, or none of it.
   * A patch's `document` must be what its ops make of the previous document (what `diffDocuments` gives):
   * an adapter may keep the document as a checkpoint and rebuild later versions by applying the patches.
   * Returns the appended entries as stored. Rejects with an EventLogError (`errors.ts`) when `document` and
   * the snapshot/patch entries disagree (one needs exactly one of the other), or on a patch with no base.
   */
  append(
    stream: StreamId,
    change: { entries: NewEntry[]; document?: unknown; now: Date },
  ): Promise<LogEntry[]>;

  /**
   * The stream's head. A stream never written has seq 0, documentSeq 0, no document, and the epoch it will
   * keep when first written (so a client that saw the empty head can resume once entries arrive).
   */
  head(stream: StreamId): Promise<StreamHead>;

  /**
   * Entries with seq > `afterSeq`, oldest first, at most `limit`. When `epoch` is given and differs from
   * the stream's, or when entries after `afterSeq` have been trimmed from the window, answers not-ok.
   * `afterSeq` ahead of the head cannot come from this log (it was reset), so it answers epoch_mismatch;
   * `afterSeq` equal to the head answers ok with no entries. Rejects a negative or fractional `afterSeq`.
   */
  read(stream: StreamId, afterSeq: number, opts?: { epoch?: string; limit?: number }): Promise<ReadResult>;

  /** All streams that have a head (for restart and for listing). */
  streams(): Promise<StreamId[]>;

  /** Trims each stream to its newest `keep` entries (the replay window). The head is never trimmed. */
  trim(keep: number): Promise<void>;

  /**
   * Applies the retention policy to every stream (see RetentionPolicy); the feed is not touched. A forgotten
   * stream's head has its seq, documentSeq 0 and no document; a settled or forgotten stream answers reads
   * from before its head `too_old`. Adapters with a file reclaim the space (SQLite: incremental vacuum).
   */
  expire(policy: RetentionPolicy): Promise<ExpireResult>;

  /** The events appended, for the webhook outbox. */
  readonly feed: EventFeed;

  close(): Promise<void>;
}
