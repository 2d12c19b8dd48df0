/**
 * Bringing one connection onto one stream: replay what it missed from the log (resume) or send a snapshot,
 * then go live. Live bus entries that arrive meanwhile wait in the stream's buffer and are flushed after,
 * deduplicated by seq, so there is neither a gap nor a duplicate. Every page and snapshot waits for the
 * connection to have room (`Session.writable`), so attach work is paced by the client's own reading.
 * A stream that cannot be read from the log is retried with a snapshot after a back-off on the wall clock.
 */

import type { StreamPosition } from '@racewire/client/protocol';
import type { Clock } from '../../clock.js';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import { entryOutgoing } from './entry-messages.js';
import { type DeliveryLimits, MAX_ATTACH_RETRY_MS } from './limits.js';
import { type Outgoing, outgoing, snapshotOutgoing } from './outgoing.js';
import type { Registry } from './registry.js';
import type { ReplaySource } from './replay-source.js';
import type { Session, StreamState } from './session.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { StreamOptions } from './stream-options.js';

/** Conflation's messages for held entries (conflation.ts `mergeHeld`), shared by subscribers at one position. */
export interface Merged {
  frames: Outgoing[];
  /** The client's document version once it applied them. */
  documentSeq: number;
}

export interface AttachContext {
  registry: Registry;
  snapshots: SnapshotSource;
  replays: ReplaySource;
  wall: Clock;
  signal: AbortSignal;
  limits: Pick<DeliveryLimits, 'attachRetryMs' | 'replayPageSize'>;
  /** Merged conflation output of the current tick, shared by subscribers at the same position. */
  merged: Map<string, Merged | null>;
  /** Conflation ticks: the flushes due at each wall-clock time. */
  ticks: Map<number, Array<() => void>>;
  /** A stream could not be read (the core retries it). */
  onError: (err: unknown, session: Session, stream: StreamId) => void;
}

export type SnapshotReason = 'too_old' | 'epoch_mismatch' | 'resync';
/** Why a subscribed stream gets a fresh snapshot unasked for: its log was reset (`epoch_mismatch`), or
 * anything else (a gap the log no longer holds, a client's resync, a failed read: `resync`). */
export type ResyncReason = Exclude<SnapshotReason, 'too_old'>;

/** Registers the stream at once (pending: nothing buffered yet) and queues its attach behind the others. */
export function attachStream(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  channel: string,
  options: StreamOptions,
  from?: StreamPosition,
  reason?: ResyncReason,
): StreamState {
  const prev = session.streams.get(stream);
  const state: StreamState = {
    phase: 'pending',
    lastSeq: 0,
    documentSeq: 0,
    buffer: [],
    retries: 0,
    channels: new Set(prev?.channels ?? []),
    options,
  };
  state.channels.add(channel);
  session.streams.set(stream, state);
  ctx.registry.addStream(session, stream);
  session.enqueueAttach(() => runAttach(ctx, session, stream, state, from, reason));
  return state;
}

/** Replaces a stream's delivery with a fresh snapshot (after a gap the log no longer holds, a reset log, and
 * the like); `reason` is what the snapshot says. */
export function resyncStream(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  reason: ResyncReason = 'resync',
): void {
  if (session.closed || session.streams.get(stream) !== state) return;
  const channel = [...state.channels][0] ?? `race:${stream}`;
  const next = attachStream(ctx, session, stream, channel, state.options, undefined, reason);
  for (const c of state.channels) next.channels.add(c);
}

const current = (session: Session, stream: StreamId, state: StreamState) =>
  !session.closed && session.streams.get(stream) === state;

/** Marks what a frame moves: the client's seq, and its document version for a patch or snapshot. */
function advance(state: StreamState, o: Outgoing) {
  const meta = o.meta;
  if (!meta) return;
  state.lastSeq = meta.seq;
  if (meta.type === 'patch' || meta.type === 'snapshot') state.documentSeq = meta.seq;
}

type ReplayOutcome =
  | { ok: true }
  | { ok: false; reason: 'too_old' | 'epoch_mismatch' | 'gone' | 'needs_snapshot' };

/** Sends the entries after `state.lastSeq`, page by page as the connection drains. */
async function replay(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  epoch: string,
  onFirstPage?: () => void,
): Promise<ReplayOutcome> {
  let first = true;
  for (;;) {
    await session.writable();
    if (!current(session, stream, state)) return { ok: false, reason: 'gone' };
    const r = await ctx.replays.read(stream, state.lastSeq, epoch, session.scope, state.options);
    if (!current(session, stream, state)) return { ok: false, reason: 'gone' };
    if (!r.ok) return { ok: false, reason: r.reason };
    if (r.page.frames.some((f) => f === null)) return { ok: false, reason: 'needs_snapshot' };
    if (first) onFirstPage?.();
    first = false;
    const frames = r.page.frames as Outgoing[];
    if (frames.length > 0) {
      if (!session.send(frames).ok) return { ok: false, reason: 'gone' };
      for (const f of frames) advance(state, f);
    }
    if (!r.page.full) return { ok: true };
  }
}

async function sendSnapshot(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  reason: SnapshotReason | undefined,
  resumeFailed: boolean,
): Promise<boolean> {
  await session.writable();
  if (!current(session, stream, state)) return false;
  const snap = await ctx.snapshots.get(stream, session.scope, state.options);
  if (!current(session, stream, state)) return false;
  const { epoch, seq, documentSeq } = snap.head;
  const fields: Record<string, unknown> = { type: 'snapshot', stream, seq, documentSeq, epoch };
  if (resumeFailed) fields.resumed = false;
  if (reason) fields.reason = reason;
  const o = snapshotOutgoing(fields, snap.document, { type: 'snapshot', stream, seq, epoch });
  if (!session.send([o]).ok) return false;
  state.lastSeq = seq;
  state.documentSeq = documentSeq;
  state.epoch = epoch;
  return true;
}

async function runAttach(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  from: StreamPosition | undefined,
  reason: ResyncReason | undefined,
): Promise<void> {
  if (!current(session, stream, state)) return;
  state.phase = 'attaching';
  state.buffer = [];
  state.failed = false;
  try {
    let failed: 'too_old' | 'epoch_mismatch' | undefined;
    let resumed = false;
    if (from) {
      state.lastSeq = from.seq;
      const r = await replay(ctx, session, stream, state, from.epoch, () => {
        session.sendOne(
          outgoing(
            { type: 'resumed', stream, epoch: from.epoch, fromSeq: from.seq },
            { type: 'resumed', stream, seq: from.seq, epoch: from.epoch },
          ),
        );
      });
      if (r.ok) {
        resumed = true;
        state.epoch = from.epoch;
      } else if (r.reason === 'gone') return;
      else if (r.reason !== 'needs_snapshot') failed = r.reason;
    }
    if (
      !resumed &&
      !(await sendSnapshot(ctx, session, stream, state, failed ?? reason, failed !== undefined))
    )
      return;
    await flushBuffer(ctx, session, stream, state);
    state.retries = 0;
  } catch (err) {
    failAttach(ctx, session, stream, state, err);
  }
}

/** The log could not be read: nothing is buffered, and a snapshot is tried again after a back-off. */
function failAttach(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  err: unknown,
) {
  if (!current(session, stream, state)) return;
  state.phase = 'attaching';
  state.failed = true;
  state.buffer = [];
  ctx.onError(err, session, stream);
  const delay = Math.min(MAX_ATTACH_RETRY_MS, ctx.limits.attachRetryMs * 2 ** state.retries);
  state.retries++;
  ctx.wall.sleep(delay, ctx.signal).then(
    () => {
      if (current(session, stream, state))
        session.enqueueAttach(() => runAttach(ctx, session, stream, state, undefined, 'resync'));
    },
    () => {},
  );
}

/** Sends buffered live entries past lastSeq; reads from the log whatever the buffer does not hold. */
async function flushBuffer(ctx: AttachContext, session: Session, stream: StreamId, state: StreamState) {
  for (;;) {
    // The log was reset while attaching: what the client was just sent is of the old epoch.
    if (state.buffer.some((e) => e.epoch !== undefined && e.epoch !== state.epoch)) {
      ctx.snapshots.invalidate(stream);
      resyncStream(ctx, session, stream, state, 'epoch_mismatch');
      return;
    }
    const pending = state.buffer.filter((e) => e.seq > state.lastSeq);
    state.buffer = [];
    const hole = state.dropped || (pending.length > 0 && pending[0]!.seq !== state.lastSeq + 1);
    if (hole) {
      // Entries appended before we listened, or dropped from a full buffer: fetch them, then look again.
      state.dropped = false;
      const r = await replay(ctx, session, stream, state, state.epoch!);
      if (!r.ok) {
        if (r.reason === 'gone') return;
        // The snapshot was older than the log's window or epoch: start again from a fresh one.
        ctx.snapshots.invalidate(stream);
        if (!(await sendSnapshot(ctx, session, stream, state, 'resync', false))) return;
      }
      state.buffer = pending.concat(state.buffer);
      continue;
    }
    if (!current(session, stream, state)) return;
    const frames: Outgoing[] = [];
    for (const e of pending) {
      if (e.seq !== state.lastSeq + 1 + frames.length) break;
      const o = entryOutgoing(e, session.scope, state.options);
      if (!o) {
        resyncStream(ctx, session, stream, state);
        return;
      }
      frames.push(o);
    }
    if (frames.length > 0) {
      if (!session.send(frames).ok) return;
      for (const f of frames) advance(state, f);
    }
    if (state.buffer.length === 0 && !state.dropped) {
      state.phase = 'live';
      return;
    }
  }
}

/**
 * A live batch arrived past a hole (a distributed bus dropped a batch): go back to attaching, read the hole
 * from the log and send it, then the waiting entries, so the client still sees every seq once. When the hole
 * is no longer in the log (trimmed, or another epoch), the client gets a fresh snapshot.
 */
export async function fillGap(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  waiting: readonly LogEntry[],
): Promise<void> {
  state.phase = 'attaching';
  state.buffer.push(...waiting);
  try {
    await flushBuffer(ctx, session, stream, state);
  } catch (err) {
    failAttach(ctx, session, stream, state, err);
  }
}

/** Holds live entries for an attaching stream; past a page of them, they are dropped and read back later. */
export function bufferLive(state: StreamState, entries: readonly LogEntry[], max: number) {
  if (state.failed || state.dropped) return;
  if (state.buffer.length + entries.length > max) {
    state.buffer = [];
    state.dropped = true;
    return;
  }
  state.buffer.push(...entries);
}
