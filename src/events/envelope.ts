/**
 * The event log's entries around the one event contract (DESIGN principle 2). The public envelope
 * (`RaceEvent`, `StreamId`) and the event payloads belong to the SDK (`@racewire/client/protocol`), which
 * clients consume; they are re-exported here for the server's modules.
 */
import type { RaceEvent, StreamId } from '@racewire/client/protocol';
import type { Operation } from 'fast-json-patch';

export { meetingStreamId, type RaceEvent, type StreamId } from '@racewire/client/protocol';

interface EntryBase {
  stream: StreamId;
  /** Position in the stream: 1, 2, 3, ... with no gaps. */
  seq: number;
  /** ISO 8601 time the entry was appended. */
  timestamp: string;
  /**
   * The log's epoch when appended, on entries of a shared log (Redis), so a node that hears of them on the
   * bus knows at once that the log was reset. Absent on a single node's log.
   */
  epoch?: string;
}

/** The whole normalised document; sent first, and instead of a patch when a patch would be too large. */
export interface SnapshotEntry extends EntryBase {
  kind: 'snapshot';
  document: unknown;
}

/** RFC 6902 operations that turn the document at `base` (the seq of the previous snapshot or patch) into
 * the document at `seq`. */
export interface PatchEntry extends EntryBase {
  kind: 'patch';
  base: number;
  ops: Operation[];
}

export interface EventEntry extends EntryBase {
  kind: 'event';
  event: RaceEvent;
}

export type LogEntry = SnapshotEntry | PatchEntry | EventEntry;

/** What the pipeline hands to the log for one observed change: entries without their positions. The log
 * numbers them in order and appends them atomically together with the new document. */
export type NewEntry =
  | Omit<SnapshotEntry, 'stream' | 'seq' | 'timestamp'>
  | Omit<PatchEntry, 'stream' | 'seq' | 'timestamp' | 'base'>
  | { kind: 'event'; event: Omit<RaceEvent, 'id' | 'stream' | 'seq' | 'timestamp'> };
