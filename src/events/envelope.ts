/**
 * The one event contract (DESIGN principle 2): what the event log stores and what WebSocket subscribers and
 * webhook consumers receive. Event payload types live in `types.ts`; this file holds the envelope and the
 * log entries around them.
 */
import type { Operation } from 'fast-json-patch';

/**
 * A stream is the unit of ordering: one per race (its race id) and one per meeting (`meeting:<meeting id>`)
 * for meeting-level events such as races added or removed.
 */
export type StreamId = string;

export const meetingStreamId = (meetingId: string): StreamId => `meeting:${meetingId}`;

/** A typed event as delivered to every consumer. `id` is stable across restarts and nodes. */
export interface RaceEvent<T extends string = string, D = unknown> {
  /** `<stream>:<seq>`: unique, stable, the dedupe key for consumers (and the webhook-id). */
  id: string;
  type: T;
  /** ISO 8601 time at which racewire detected the change. */
  timestamp: string;
  stream: StreamId;
  seq: number;
  meetingId: string;
  /** Absent for meeting-level events. */
  raceId?: string;
  data: D;
}

interface EntryBase {
  stream: StreamId;
  /** Position in the stream: 1, 2, 3, ... with no gaps. */
  seq: number;
  /** ISO 8601 time the entry was appended. */
  timestamp: string;
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
