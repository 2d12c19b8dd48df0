/**
 * Indexes from what the bus publishes to the connections that want it, so a batch touches only its
 * subscribers: by stream (attached race and meeting streams), by meeting (to attach races that appear
 * later) and the firehose.
 */
import type { StreamId } from '../../events/envelope.js';
import type { RaceCatalog } from './catalog.js';
import type { Session } from './session.js';

export class Registry<C extends Session = Session> {
  readonly all = new Set<C>();
  readonly byStream = new Map<StreamId, Set<C>>();
  readonly byMeeting = new Map<string, Set<C>>();
  readonly firehose = new Set<C>();

  private static add<K, C>(map: Map<K, Set<C>>, key: K, conn: C) {
    let set = map.get(key);
    if (!set) {
      set = new Set();
      map.set(key, set);
    }
    set.add(conn);
  }

  private static remove<K, C>(map: Map<K, Set<C>>, key: K, conn: C) {
    const set = map.get(key);
    if (!set) return;
    set.delete(conn);
    if (set.size === 0) map.delete(key);
  }

  addStream(conn: C, stream: StreamId) {
    Registry.add(this.byStream, stream, conn);
  }

  removeStream(conn: C, stream: StreamId) {
    conn.streams.delete(stream);
    Registry.remove(this.byStream, stream, conn);
  }

  addMeeting(conn: C, meetingId: string) {
    Registry.add(this.byMeeting, meetingId, conn);
  }

  removeMeeting(conn: C, meetingId: string) {
    Registry.remove(this.byMeeting, meetingId, conn);
  }

  /** Forgets a closed connection everywhere. */
  removeConnection(conn: C) {
    this.all.delete(conn);
    this.firehose.delete(conn);
    for (const stream of conn.streams.keys()) Registry.remove(this.byStream, stream, conn);
    for (const ch of conn.channels.values())
      if (ch.kind === 'meeting') this.removeMeeting(conn, ch.meetingId);
  }
}

/** Subscribers per race id (a meeting subscription counts for each of its races): the poller's priority. */
export function subscriberCounts(
  subscribers: Iterable<Session>,
  catalog: RaceCatalog,
  into: Map<string, number> = new Map(),
): Map<string, number> {
  for (const conn of subscribers) {
    const races = new Set<string>();
    for (const ch of conn.channels.values()) {
      if (ch.kind === 'race') races.add(ch.raceId);
      else if (ch.kind === 'meeting') for (const r of catalog.racesOfMeeting(ch.meetingId)) races.add(r);
    }
    for (const r of races) into.set(r, (into.get(r) ?? 0) + 1);
  }
  return into;
}
