/**
 * In-process event log for tests and single-node runs without a disk. Entries and documents are kept as
 * JSON text, like the durable adapters keep them, so callers see the same copies and the same JSON
 * semantics (no shared objects, `undefined` fields dropped) whichever adapter they run on.
 */
import { randomUUID } from 'node:crypto';
import type { EventEntry, LogEntry, StreamId } from '../events/envelope.js';
import { EventLogError } from './errors.js';
import { assertCount, checkRead, stampChange } from './log-rules.js';
import type { EventFeed, EventLog, ReadResult, StreamHead } from './ports.js';

export interface MemoryEventLogOptions {
  /** Entries kept per stream; older ones are trimmed on append. Unlimited when absent. */
  window?: number;
  /** Makes the log's epoch, once per log instance. @default crypto.randomUUID */
  newEpoch?: () => string;
}

interface StreamState {
  epoch: string;
  seq: number;
  documentSeq: number;
  document: string | undefined;
  /** Retained entries, oldest first, as JSON text. */
  entries: Array<{ seq: number; json: string }>;
  /** The `now` of the last append, in ms (for retention). */
  updatedAt: number;
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: an adapter of the event log port: its methods share the streams' state and each is short
export function createMemoryEventLog(opts: MemoryEventLogOptions = {}): EventLog {
  if (opts.window !== undefined) assertCount('window', opts.window);
  // One epoch for the whole log: a stream keeps the epoch its head reported before it was first written.
  const epoch = (opts.newEpoch ?? randomUUID)();
  const streams = new Map<StreamId, StreamState>();
  /** The feed: event entries as JSON, positions 1, 2, 3, ... */
  const feedItems: Array<{ position: number; json: string }> = [];
  let feedPosition = 0;
  let closed = false;

  const open = () => {
    if (closed) throw new EventLogError('log_closed', 'the event log is closed');
  };

  const headOf = (stream: StreamId, state: StreamState | undefined): StreamHead =>
    state
      ? {
          stream,
          epoch: state.epoch,
          seq: state.seq,
          documentSeq: state.documentSeq,
          document: state.document === undefined ? undefined : JSON.parse(state.document),
        }
      : { stream, epoch, seq: 0, documentSeq: 0, document: undefined };

  const trimStream = (state: StreamState, keep: number) => {
    if (state.entries.length > keep) state.entries.splice(0, state.entries.length - keep);
  };

  const feed: EventFeed = {
    async read(after, limit) {
      open();
      const from = after === '' ? 0 : Number(after);
      return feedItems
        .filter((item) => item.position > from)
        .slice(0, limit)
        .map((item) => ({ position: String(item.position), entry: JSON.parse(item.json) as EventEntry }));
    },
    async trim(through) {
      open();
      const kept = feedItems.findIndex((item) => item.position > Number(through));
      feedItems.splice(0, kept === -1 ? feedItems.length : kept);
    },
  };

  return {
    // Synchronous bodies: an append cannot interleave with another, so seqs never collide.
    async append(stream, change) {
      open();
      const state = streams.get(stream);
      const stamped = stampChange(stream, state ?? { seq: 0, documentSeq: 0, epoch }, change);
      if (stamped.entries.length === 0) return [];
      const rows = stamped.entries.map((e) => ({ seq: e.seq, json: JSON.stringify(e) }));
      const stored = rows.map((r) => JSON.parse(r.json) as LogEntry);
      const document = stamped.documentSeq === undefined ? undefined : JSON.stringify(change.document);

      const next: StreamState = state ?? {
        epoch,
        seq: 0,
        documentSeq: 0,
        document: undefined,
        entries: [],
        updatedAt: 0,
      };
      next.entries.push(...rows);
      next.updatedAt = change.now.getTime();
      next.seq = stamped.entries.at(-1)!.seq;
      if (stamped.documentSeq !== undefined) {
        next.documentSeq = stamped.documentSeq;
        next.document = document;
      }
      if (opts.window !== undefined) trimStream(next, opts.window);
      streams.set(stream, next);
      stored.forEach((entry, i) => {
        if (entry.kind === 'event') feedItems.push({ position: ++feedPosition, json: rows[i]!.json });
      });
      return stored;
    },

    async head(stream) {
      open();
      return headOf(stream, streams.get(stream));
    },

    async read(stream, afterSeq, readOpts = {}): Promise<ReadResult> {
      open();
      assertCount('afterSeq', afterSeq);
      if (readOpts.limit !== undefined) assertCount('limit', readOpts.limit);
      const state = streams.get(stream);
      const retained = state?.entries ?? [];
      const refused = checkRead(headOf(stream, state), retained[0]?.seq, afterSeq, readOpts);
      if (refused) return refused;
      // Seqs are contiguous, so the first wanted entry sits at a known offset.
      const from = retained.length === 0 ? 0 : afterSeq + 1 - retained[0]!.seq;
      const to = readOpts.limit === undefined ? retained.length : from + readOpts.limit;
      return { ok: true, entries: retained.slice(from, to).map((r) => JSON.parse(r.json) as LogEntry) };
    },

    async streams() {
      open();
      return [...streams.keys()].sort();
    },

    async trim(keep) {
      open();
      assertCount('keep', keep);
      for (const state of streams.values()) trimStream(state, keep);
    },

    async expire(policy) {
      open();
      const result = { settled: 0, forgotten: 0 };
      for (const state of streams.values()) {
        if (state.updatedAt >= policy.settledBefore.getTime()) continue;
        const hadEntries = state.entries.length > 0;
        if (state.updatedAt < policy.forgetBefore.getTime() && (hadEntries || state.documentSeq !== 0)) {
          Object.assign(state, { entries: [], documentSeq: 0, document: undefined });
          result.forgotten++;
        } else if (hadEntries) {
          state.entries = [];
          result.settled++;
        }
      }
      return result;
    },

    feed,

    async close() {
      closed = true;
    },
  };
}
