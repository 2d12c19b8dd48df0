/**
 * Bringing one connection onto one stream: either replay what it missed from the log (resume) or send a
 * snapshot, then go live. Live bus entries that arrive meanwhile wait in the stream's buffer and are
 * flushed after, deduplicated by seq, so there is neither a gap nor a duplicate.
 */

import type { SnapshotMessage, StreamPosition } from '@racewire/client/protocol';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { EventLog } from '../../store/ports.js';
import type { StreamState, Subscriber } from './connection.js';
import type { Outgoing } from './frame.js';
import type { FrameCache } from './frame-cache.js';
import { redactValue } from './redact.js';

export interface AttachDeps {
  log: EventLog;
  /** Entries per log read while replaying. */
  pageSize: number;
  onError: (err: unknown, conn: Subscriber, stream: StreamId) => void;
  /** Shares serialised replay entries between connections. */
  frames: FrameCache;
}

/** Starts attaching; the stream state is registered synchronously so live entries are buffered at once. */
export function beginAttach(conn: Subscriber, stream: StreamId, channel: string): StreamState {
  const prev = conn.streams.get(stream);
  const state: StreamState = {
    phase: 'attaching',
    lastSeq: 0,
    buffer: [],
    channels: new Set(prev?.channels ?? []),
  };
  state.channels.add(channel);
  conn.streams.set(stream, state);
  return state;
}

const current = (conn: Subscriber, stream: StreamId, state: StreamState) =>
  !conn.closed && conn.streams.get(stream) === state;

/** Sends entries to one connection; false when the connection could not take them (closed or slow). */
function sendEntries(deps: AttachDeps, conn: Subscriber, entries: readonly LogEntry[]): boolean {
  if (entries.length === 0) return true;
  const batch: Outgoing[] = entries.map((e) => deps.frames.get(e, conn.scope));
  return conn.send(batch).ok;
}

/**
 * Reads entries after `afterSeq` page by page and sends them. Returns the last seq sent, or the read's
 * refusal when the position is outside the window or from another epoch.
 */
async function replay(
  deps: AttachDeps,
  conn: Subscriber,
  stream: StreamId,
  state: StreamState,
  afterSeq: number,
  epoch: string | undefined,
  onFirstPage?: () => void,
): Promise<{ ok: true; lastSeq: number } | { ok: false; reason: 'too_old' | 'epoch_mismatch' | 'gone' }> {
  let last = afterSeq;
  let first = true;
  for (;;) {
    const r = await deps.log.read(stream, last, { epoch, limit: deps.pageSize });
    if (!current(conn, stream, state)) return { ok: false, reason: 'gone' };
    if (!r.ok) return { ok: false, reason: r.reason };
    if (first) onFirstPage?.();
    first = false;
    if (!sendEntries(deps, conn, r.entries)) return { ok: false, reason: 'gone' };
    if (r.entries.length > 0) last = r.entries.at(-1)!.seq;
    if (r.entries.length < deps.pageSize) return { ok: true, lastSeq: last };
  }
}

/**
 * Completes an attach begun with `beginAttach`. `from`: the client's last position, to resume.
 * `reason` labels a snapshot sent without a failed resume (e.g. a resync the client asked for).
 */
export async function completeAttach(
  deps: AttachDeps,
  conn: Subscriber,
  stream: StreamId,
  state: StreamState,
  from: StreamPosition | undefined,
  reason?: 'resync',
): Promise<void> {
  try {
    let failed: 'too_old' | 'epoch_mismatch' | undefined;
    let resumed = false;
    if (from) {
      const r = await replay(deps, conn, stream, state, from.seq, from.epoch, () => {
        conn.sendOne({ type: 'resumed', stream, epoch: from.epoch, fromSeq: from.seq });
      });
      if (r.ok) {
        state.lastSeq = r.lastSeq;
        resumed = true;
      } else if (r.reason === 'gone') return;
      else failed = r.reason;
    }
    if (!resumed) {
      const head = await deps.log.head(stream);
      if (!current(conn, stream, state)) return;
      const snap: SnapshotMessage = {
        type: 'snapshot',
        stream,
        seq: head.seq,
        documentSeq: head.documentSeq,
        epoch: head.epoch,
        document: conn.scope === 'public' ? redactValue(head.document ?? null) : (head.document ?? null),
      };
      if (failed) {
        snap.resumed = false;
        snap.reason = failed;
      } else if (reason) snap.reason = reason;
      if (!conn.sendOne(snap).ok) return;
      state.lastSeq = head.seq;
    }
    await flushBuffer(deps, conn, stream, state);
  } catch (err) {
    failAttach(deps, conn, stream, state, err);
  }
}

/** The log could not be read: nothing is buffered until the client asks for a resync. */
function failAttach(deps: AttachDeps, conn: Subscriber, stream: StreamId, state: StreamState, err: unknown) {
  state.failed = true;
  state.buffer = [];
  deps.onError(err, conn, stream);
}

/** Sends buffered live entries past lastSeq; if the buffer starts beyond lastSeq + 1, reads the hole. */
async function flushBuffer(deps: AttachDeps, conn: Subscriber, stream: StreamId, state: StreamState) {
  for (;;) {
    const pending = state.buffer.filter((e) => e.seq > state.lastSeq);
    state.buffer = [];
    if (pending.length > 0 && pending[0]!.seq !== state.lastSeq + 1) {
      // Entries appended before we listened and after our read: fetch them, then look again.
      const r = await replay(deps, conn, stream, state, state.lastSeq, undefined);
      if (!r.ok) return;
      state.lastSeq = r.lastSeq;
      state.buffer = pending.concat(state.buffer);
      continue;
    }
    if (!current(conn, stream, state)) return;
    const contiguous: LogEntry[] = [];
    for (const e of pending) {
      if (e.seq !== state.lastSeq + 1 + contiguous.length) break;
      contiguous.push(e);
    }
    if (!sendEntries(deps, conn, contiguous)) return;
    if (contiguous.length > 0) state.lastSeq = contiguous.at(-1)!.seq;
    if (state.buffer.length === 0) {
      state.phase = 'live';
      return;
    }
  }
}

/**
 * A live batch arrived past a hole (a distributed bus dropped a batch): go back to attaching, read the hole
 * from the log and send it, then the waiting entries, so the client still sees every seq once. When the
 * hole is no longer in the log (trimmed, or another epoch), `onLost` resyncs the client with a snapshot.
 */
export async function fillGap(
  deps: AttachDeps,
  conn: Subscriber,
  stream: StreamId,
  state: StreamState,
  waiting: readonly LogEntry[],
  onLost: () => void,
): Promise<void> {
  state.phase = 'attaching';
  state.buffer.push(...waiting);
  try {
    const r = await replay(deps, conn, stream, state, state.lastSeq, undefined);
    if (!r.ok) {
      if (r.reason !== 'gone') onLost();
      return;
    }
    state.lastSeq = r.lastSeq;
    await flushBuffer(deps, conn, stream, state);
  } catch (err) {
    failAttach(deps, conn, stream, state, err);
  }
}
