/**
 * Two loops on the injected clock: WebSocket pings that terminate peers that stopped answering, and the
 * application heartbeat telling each client how fresh the data of its races is.
 */

import type { HeartbeatMessage } from '@racewire/client/protocol';
import type { Clock } from '../../clock.js';
import type { RaceCatalog } from './catalog.js';
import type { Connection } from './connection.js';

export interface HeartbeatDeps {
  clock: Clock;
  catalog: RaceCatalog;
  connections: Iterable<Connection>;
  limits: { heartbeatMs: number; pingIntervalMs: number };
  stats: { deadTerminations: number };
  signal: AbortSignal;
}

export function heartbeatMessage(conn: Connection, catalog: RaceCatalog, now: number): HeartbeatMessage {
  const streams: HeartbeatMessage['streams'] = {};
  for (const [stream, state] of conn.streams) {
    if (stream.startsWith('meeting:')) continue;
    streams[stream] = { seq: state.lastSeq, staleMs: catalog.staleness(stream) ?? null };
  }
  return { type: 'heartbeat', time: now, streams };
}

/** Runs `tick` every `ms` on the clock until `signal` aborts. */
export async function every(clock: Clock, ms: number, signal: AbortSignal, tick: () => void): Promise<void> {
  for (;;) {
    try {
      await clock.sleep(ms, signal);
    } catch {
      return; // aborted: the gateway is closing
    }
    tick();
  }
}

export function createHeartbeats(deps: HeartbeatDeps): { done: Promise<void> } {
  const { clock, signal } = deps;
  const ping = every(clock, deps.limits.pingIntervalMs, signal, () => {
    for (const conn of deps.connections) {
      if (conn.closed) continue;
      if (conn.awaitingPong) {
        deps.stats.deadTerminations++;
        conn.closed = true;
        conn.ws.terminate();
        continue;
      }
      conn.awaitingPong = true;
      try {
        conn.ws.ping();
      } catch {
        // Socket already closing; the close handler cleans up.
      }
    }
  });
  const app = every(clock, deps.limits.heartbeatMs, signal, () => {
    const now = clock.now();
    for (const conn of deps.connections) {
      if (!conn.closed) conn.sendOne(heartbeatMessage(conn, deps.catalog, now));
    }
  });
  return { done: Promise.all([ping, app]).then(() => undefined) };
}
