/**
 * Indexes from what the bus publishes to the connections that want it, so a batch touches only its
 * subscribers: by stream (attached race and meeting streams), by meeting (to attach races that appear
 * later) and the firehose.
 */
import type { StreamId } from '../../events/envelope.js';
import type { Connection } from './connection.js';

export class Registry {
  readonly all = new Set<Connection>();
  readonly byStream = new Map<StreamId, Set<Connection>>();
  readonly byMeeting = new Map<string, Set<Connection>>();
  readonly firehose = new Set<Connection>();

  private static add<K>(map: Map<K, Set<Connection>>, key: K, conn: Connection) {
    let set = map.get(key);
    if (!set) {
      set = new Set();
      map.set(key, set);
    }
    set.add(conn);
  }

  private static remove<K>(map: Map<K, Set<Connection>>, key: K, conn: Connection) {
    const set = map.get(key);
    if (!set) return;
    set.delete(conn);
    if (set.size === 0) map.delete(key);
  }

  addStream(conn: Connection, stream: StreamId) {
    Registry.add(this.byStream, stream, conn);
  }

  removeStream(conn: Connection, stream: StreamId) {
    conn.streams.delete(stream);
    Registry.remove(this.byStream, stream, conn);
  }

  addMeeting(conn: Connection, meetingId: string) {
    Registry.add(this.byMeeting, meetingId, conn);
  }

  removeMeeting(conn: Connection, meetingId: string) {
    Registry.remove(this.byMeeting, meetingId, conn);
  }

  /** Forgets a closed connection everywhere. */
  removeConnection(conn: Connection) {
    this.all.delete(conn);
    this.firehose.delete(conn);
    for (const stream of conn.streams.keys()) Registry.remove(this.byStream, stream, conn);
    for (const ch of conn.channels.values())
      if (ch.kind === 'meeting') this.removeMeeting(conn, ch.meetingId);
  }
}
