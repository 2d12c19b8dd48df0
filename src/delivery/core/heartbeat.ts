/**
 * The heartbeat, on the wall clock. Before each one, the hub checks every live stream's tail in the log: a
 * batch the bus lost (the last one, which no later batch would reveal) is read and delivered, and a stream
 * whose log was reset gets fresh snapshots. Each heartbeat then names, per live stream, the head seq and
 * epoch: everything up to that seq left before the heartbeat, so a client behind it knows it lost something.
 */

import type { HeartbeatMessage } from '@racewire/client/protocol';
import type { Clock } from '../../clock.js';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { EventLog } from '../../store/ports.js';
import type { RaceCatalog } from './catalog.js';
import { type Outgoing, outgoing } from './outgoing.js';
import type { Registry } from './registry.js';
import type { Session } from './session.js';
import type { SnapshotSource } from './snapshot-source.js';

export interface HeartbeatDeps {
  wall: Clock;
  everyMs: number;
  /** Most entries read per stream per check. */
  pageSize: number;
  signal: AbortSignal;
  log: EventLog;
  registry: Registry;
  snapshots: Pick<SnapshotSource, 'latest'>;
  /** Entries found in the log past what this node delivered. */
  onTail: (entries: LogEntry[]) => void;
  /** The stream's log is from another epoch, or no longer holds what this node delivered last. */
  onReset: (stream: StreamId) => void;
  onTailError: (err: unknown, stream: StreamId) => void;
  beat: () => void;
}

/** Runs `tick` every `ms` of the clock until `signal` aborts. */
export async function every(clock: Clock, ms: number, signal: AbortSignal, tick: () => Promise<void> | void) {
  for (;;) {
    try {
      await clock.sleep(ms, signal);
    } catch {
      return; // aborted: closing
    }
    await tick();
  }
}

/** Where this node stands on each stream with live subscribers: the furthest seq delivered, and its epoch. */
function liveStreams(registry: Registry): Map<StreamId, { seq: number; epoch: string }> {
  const out = new Map<StreamId, { seq: number; epoch: string }>();
  for (const [stream, sessions] of registry.byStream) {
    for (const s of sessions) {
      const state = s.streams.get(stream);
      if (state?.phase !== 'live' || state.epoch === undefined) continue;
      const known = out.get(stream);
      if (!known || state.lastSeq > known.seq) out.set(stream, { seq: state.lastSeq, epoch: state.epoch });
    }
  }
  return out;
}

/** The furthest this node has seen of a stream in `epoch` (entries of another epoch say nothing of it). */
function seenIn(snapshots: Pick<SnapshotSource, 'latest'>, stream: StreamId, epoch: string): number {
  const latest = snapshots.latest(stream);
  return latest && (latest.epoch === undefined || latest.epoch === epoch) ? latest.seq : 0;
}

export async function checkTails(deps: HeartbeatDeps): Promise<void> {
  for (const [stream, at] of liveStreams(deps.registry)) {
    const after = Math.max(at.seq, seenIn(deps.snapshots, stream, at.epoch));
    try {
      const r = await deps.log.read(stream, after, { epoch: at.epoch, limit: deps.pageSize });
      if (!r.ok) deps.onReset(stream);
      else if (r.entries.length > 0) deps.onTail(r.entries);
    } catch (err) {
      deps.onTailError(err, stream);
    }
  }
}

export function runHeartbeat(deps: HeartbeatDeps): Promise<void> {
  return every(deps.wall, deps.everyMs, deps.signal, async () => {
    await checkTails(deps);
    if (!deps.signal.aborted) deps.beat();
  });
}

export function heartbeatMessage(
  session: Session,
  catalog: RaceCatalog,
  snapshots: Pick<SnapshotSource, 'latest'>,
  now: number,
): HeartbeatMessage {
  const streams: HeartbeatMessage['streams'] = {};
  for (const [stream, state] of session.streams) {
    if (state.phase !== 'live' || state.epoch === undefined) continue;
    const staleMs = stream.startsWith('meeting:') ? null : (catalog.staleness(stream) ?? null);
    const latest = snapshots.latest(stream);
    // The head as this node knows it: of another epoch when the log was reset (the client then resyncs).
    const head =
      latest?.epoch !== undefined && latest.epoch !== state.epoch
        ? { seq: latest.seq, epoch: latest.epoch }
        : { seq: Math.max(state.lastSeq, latest?.seq ?? 0), epoch: state.epoch };
    streams[stream] = { ...head, staleMs };
  }
  return { type: 'heartbeat', time: now, streams };
}

export function heartbeatOutgoing(
  session: Session,
  catalog: RaceCatalog,
  snapshots: Pick<SnapshotSource, 'latest'>,
  now: number,
): Outgoing {
  return { ...outgoing(heartbeatMessage(session, catalog, snapshots, now)), heartbeat: now };
}
