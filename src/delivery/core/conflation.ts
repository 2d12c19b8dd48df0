/**
 * Conflated streams (`conflateMs`): live entries are held and leave together at the next multiple of
 * `conflateMs` on the wall clock, as every event in order and at most one merged patch. The merged patch
 * applies to the client's own document version (`base`), and every message of a conflated stream names the
 * seq of the one before it (`prevSeq`), so a client still checks continuity although seqs are skipped.
 */

import type { EventMessage, PatchMessage } from '@racewire/client/protocol';
import type { Operation } from 'fast-json-patch';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { Scope } from './auth.js';
import { compactOps } from './compact-ops.js';
import { entryMessage, opsFor } from './entry-messages.js';
import { type Outgoing, outgoing } from './outgoing.js';
import type { Session, StreamState } from './session.js';
import { type AttachContext, fillGap, type Merged, resyncStream } from './stream-attach.js';
import { type StreamOptions, variantKey } from './stream-options.js';

export function holdForConflation(
  ctx: AttachContext,
  session: Session,
  stream: StreamId,
  state: StreamState,
  entries: readonly LogEntry[],
): void {
  state.held ??= { entries: [], timer: false };
  const held = state.held;
  const last = held.entries.at(-1)?.seq ?? state.lastSeq;
  const fresh = entries.filter((e) => e.seq > last);
  if (fresh.length === 0) return;
  if (fresh[0]!.seq !== last + 1) {
    // A hole: send what is held, then read the hole like any live stream.
    flushHeld(ctx, session, stream, state);
    void fillGap(ctx, session, stream, state, fresh);
    return;
  }
  held.entries.push(...fresh);
  if (held.timer) return;
  held.timer = true;
  onTick(ctx, state.options.conflateMs!, () => {
    held.timer = false;
    flushHeld(ctx, session, stream, state);
  });
}

/**
 * Runs `flush` at the next multiple of `every` on the wall clock. One timer per tick for all the streams and
 * connections due then, so they flush together (and share their merged messages).
 */
function onTick(ctx: AttachContext, every: number, flush: () => void) {
  const now = ctx.wall.now();
  const due = now + every - (now % every);
  const waiting = ctx.ticks.get(due);
  if (waiting) {
    waiting.push(flush);
    return;
  }
  const flushes = [flush];
  ctx.ticks.set(due, flushes);
  ctx.wall.sleep(due - now, ctx.signal).then(
    () => {
      ctx.ticks.delete(due);
      for (const f of flushes) f();
      ctx.merged.clear();
    },
    () => ctx.ticks.delete(due),
  );
}

/** Sends what a conflated stream holds: events in seq order around one merged patch. */
export function flushHeld(ctx: AttachContext, session: Session, stream: StreamId, state: StreamState): void {
  const held = state.held;
  if (!held || held.entries.length === 0) return;
  const entries = held.entries;
  held.entries = [];
  if (session.closed || session.streams.get(stream) !== state || state.phase !== 'live') return;
  // Subscribers of one variant at the same position flush the same entries at the same tick: merge once
  // (the tick clears what it merged; a heartbeat's flush outside a tick clears its own).
  const key = `${stream}|${variantKey(session.scope, state.options)}|${state.lastSeq}|${state.documentSeq}|${entries.at(-1)!.seq}`;
  let merged = ctx.merged.get(key);
  if (!merged) {
    merged =
      mergeHeld(stream, entries, session.scope, state.options, state.lastSeq, state.documentSeq) ?? null;
    ctx.merged.set(key, merged);
  }
  if (!merged) {
    resyncStream(ctx, session, stream, state);
    return;
  }
  if (merged.frames.length === 0 || !session.send(merged.frames).ok) return;
  state.lastSeq = entries.at(-1)!.seq;
  state.documentSeq = merged.documentSeq;
}

/**
 * The messages for held entries, for a client at `lastSeq` holding the document at `documentSeq`: events in
 * seq order around one merged patch (a snapshot entry starts a new run). Undefined when the variant cannot
 * take a patch (projection): the client needs a snapshot.
 */
export function mergeHeld(
  stream: StreamId,
  entries: readonly LogEntry[],
  scope: Scope,
  options: StreamOptions,
  lastSeq: number,
  documentSeq: number,
): Merged | undefined {
  const frames: Outgoing[] = [];
  let prevSeq = lastSeq;
  let docSeq = documentSeq;
  const emit = (message: { seq: number }, type: 'patch' | 'event' | 'snapshot') => {
    frames.push(outgoing({ ...message, prevSeq }, { type, stream, seq: message.seq }));
    prevSeq = message.seq;
  };
  let ops: Operation[] = [];
  let lastPatch: (LogEntry & { kind: 'patch' }) | undefined;
  let after: EventMessage[] = [];
  const closeRun = () => {
    if (!lastPatch) return;
    const patch: PatchMessage = {
      type: 'patch',
      stream,
      seq: lastPatch.seq,
      base: docSeq,
      ops: compactOps(ops),
      timestamp: lastPatch.timestamp,
    };
    emit(patch, 'patch');
    docSeq = lastPatch.seq;
    for (const e of after) emit(e, 'event');
    ops = [];
    lastPatch = undefined;
    after = [];
  };
  for (const e of entries) {
    if (e.kind === 'patch') {
      const visible = opsFor(e, scope, options);
      if (!visible) return undefined;
      for (const ev of after) emit(ev, 'event'); // events before this patch keep their place
      after = [];
      ops.push(...visible);
      lastPatch = e;
    } else if (e.kind === 'event') {
      const m = entryMessage(e, scope, options) as EventMessage;
      if (lastPatch) after.push(m);
      else emit(m, 'event');
    } else {
      closeRun();
      emit(entryMessage(e, scope, options)!, 'snapshot');
      docSeq = e.seq;
    }
  }
  closeRun();
  return { frames, documentSeq: docSeq };
}
