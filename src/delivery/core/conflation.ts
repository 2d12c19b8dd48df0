/**
 * Conflated streams (`conflateMs`): live entries are held and leave together at the next multiple of
 * `conflateMs` on the wall clock, as every event in order and at most one merged patch. The merged patch
 * applies to the client's own document version (`base`), and every message of a conflated stream names the
 * seq of the one before it (`prevSeq`), so a client still checks continuity although seqs are skipped.
 */

import type { EventMessage, PatchMessage } from '@racewire/client/protocol';
import type { Operation } from 'fast-json-patch';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import { compactOps } from './compact-ops.js';
import { entryMessage, opsFor } from './entry-messages.js';
import { type Outgoing, outgoing } from './outgoing.js';
import type { Session, StreamState } from './session.js';
import { type AttachContext, fillGap, resyncStream } from './stream-attach.js';

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
  const every = state.options.conflateMs!;
  ctx.wall.sleep(every - (ctx.wall.now() % every), ctx.signal).then(
    () => {
      held.timer = false;
      flushHeld(ctx, session, stream, state);
    },
    () => {},
  );
}

/** Sends what a conflated stream holds: events in seq order around one merged patch. */
export function flushHeld(ctx: AttachContext, session: Session, stream: StreamId, state: StreamState): void {
  const held = state.held;
  if (!held || held.entries.length === 0) return;
  const entries = held.entries;
  held.entries = [];
  if (session.closed || session.streams.get(stream) !== state || state.phase !== 'live') return;
  const out: Outgoing[] = [];
  let prevSeq = state.lastSeq;
  let documentSeq = state.documentSeq;
  const emit = (
    message: PatchMessage | EventMessage | { type: 'snapshot'; seq: number },
    type: 'patch' | 'event' | 'snapshot',
  ) => {
    out.push(outgoing({ ...message, prevSeq }, { type, stream, seq: message.seq }));
    prevSeq = message.seq;
  };
  let ops: Operation[] = [];
  let lastPatch: (LogEntry & { kind: 'patch' }) | undefined;
  let after: EventMessage[] = [];
  const closeRun = () => {
    if (!lastPatch) return;
    emit(
      {
        type: 'patch',
        stream,
        seq: lastPatch.seq,
        base: documentSeq,
        ops: compactOps(ops),
        timestamp: lastPatch.timestamp,
      },
      'patch',
    );
    documentSeq = lastPatch.seq;
    for (const e of after) emit(e, 'event');
    ops = [];
    lastPatch = undefined;
    after = [];
  };
  for (const e of entries) {
    if (e.kind === 'patch') {
      const visible = opsFor(e, session.scope, state.options);
      if (!visible) {
        resyncStream(ctx, session, stream, state);
        return;
      }
      for (const ev of after) emit(ev, 'event'); // events before this patch keep their place
      after = [];
      ops.push(...visible);
      lastPatch = e;
    } else if (e.kind === 'event') {
      const m = entryMessage(e, session.scope, state.options) as EventMessage;
      if (lastPatch) after.push(m);
      else emit(m, 'event');
    } else {
      closeRun();
      const m = entryMessage(e, session.scope, state.options) as { type: 'snapshot'; seq: number };
      emit(m, 'snapshot');
      documentSeq = e.seq;
    }
  }
  closeRun();
  if (out.length === 0) return;
  if (!session.send(out).ok) return;
  state.lastSeq = entries.at(-1)!.seq;
  state.documentSeq = documentSeq;
}
