/**
 * Live delivery of one bus batch (entries of one stream, in seq order). Each entry is serialised once per
 * audience; each connection gets one write for the whole batch. A connection whose copy would skip a seq
 * has the hole read from the log first (it cannot happen with an in-process bus, but a distributed one may
 * drop a batch).
 */

import type { FirehoseFilter, StreamPosition } from '@racewire/client/protocol';
import type { LogEntry } from '../../events/envelope.js';
import type { RaceCatalog } from './catalog.js';
import type { ParsedChannel } from './client-messages.js';
import type { Subscriber } from './connection.js';
import { BatchFrames } from './entry-messages.js';
import type { Outgoing } from './frame.js';
import type { Registry } from './registry.js';
import { type AttachDeps, beginAttach, completeAttach, fillGap } from './stream-attach.js';

export interface DeliveryStats {
  messagesSent: number;
  bytesSent: number;
}

export interface FanoutDeps {
  catalog: RaceCatalog;
  registry: Registry<Subscriber>;
  attach: AttachDeps;
  stats: DeliveryStats;
}

/** Attaches `conn` to `stream` for `channel`, resuming from `from` when given. */
export function attachStream(
  deps: Pick<FanoutDeps, 'registry' | 'attach'>,
  conn: Subscriber,
  stream: string,
  channel: string,
  from?: { seq: number; epoch: string },
  reason?: 'resync',
) {
  const state = beginAttach(conn, stream, channel);
  deps.registry.addStream(conn, stream);
  void completeAttach(deps.attach, conn, stream, state, from, reason);
}

/**
 * Subscribes `conn` to a race or meeting channel: records it, attaches each stream it covers now (a
 * meeting: its own stream and its races; races added later attach in `fanOut`), resuming those in `from`.
 * `announce` runs before any stream message is queued (the WebSocket `subscribed` answer).
 */
export function subscribeChannel(
  deps: Pick<FanoutDeps, 'registry' | 'attach' | 'catalog'>,
  conn: Subscriber,
  channel: string,
  ch: ParsedChannel & { kind: 'race' | 'meeting' },
  from?: Readonly<Record<string, StreamPosition>>,
  announce?: (streams: string[]) => void,
): string[] {
  const streams =
    ch.kind === 'race'
      ? [ch.raceId]
      : [`meeting:${ch.meetingId}`, ...deps.catalog.racesOfMeeting(ch.meetingId)];
  conn.channels.set(channel, ch);
  if (ch.kind === 'meeting') deps.registry.addMeeting(conn, ch.meetingId);
  announce?.(streams);
  for (const stream of streams) {
    const position = from && Object.hasOwn(from, stream) ? from[stream] : undefined;
    const existing = conn.streams.get(stream);
    if (existing && !position) {
      existing.channels.add(channel); // already delivered through another channel
      continue;
    }
    attachStream(deps, conn, stream, channel, position);
  }
  return streams;
}

export function matchesFilter(
  filter: FirehoseFilter | undefined,
  catalog: RaceCatalog,
  entry: LogEntry & { kind: 'event' },
): boolean {
  if (!filter) return true;
  if (filter.types && !filter.types.includes(entry.event.type)) return false;
  if (!filter.countries && !filter.codes) return true;
  const raceId = entry.event.raceId ?? catalog.racesOfMeeting(entry.event.meetingId)[0];
  const race = raceId === undefined ? undefined : catalog.race(raceId);
  if (!race) return false;
  if (filter.countries && !filter.countries.includes(race.country)) return false;
  if (filter.codes && !filter.codes.includes(race.category)) return false;
  return true;
}

export function fanOut(deps: FanoutDeps, entries: readonly LogEntry[]): void {
  const first = entries[0];
  if (!first) return;
  const stream = first.stream;
  const frames = new BatchFrames(entries);
  const { registry, stats } = deps;

  // A race that joined a subscribed meeting after the subscription: attach it (snapshot, then live).
  if (registry.byMeeting.size > 0 && !stream.startsWith('meeting:')) {
    const meetingId = deps.catalog.race(stream)?.meetingId;
    const watchers = meetingId === undefined ? undefined : registry.byMeeting.get(meetingId);
    if (watchers) {
      for (const conn of watchers) {
        if (!conn.streams.has(stream)) attachStream(deps, conn, stream, `meeting:${meetingId}`);
      }
    }
  }

  const subscribers = registry.byStream.get(stream);
  if (subscribers) {
    for (const conn of subscribers) {
      const state = conn.streams.get(stream);
      if (!state) continue;
      if (state.phase === 'attaching') {
        if (!state.failed) state.buffer.push(...entries);
        continue;
      }
      const batch: Outgoing[] = [];
      let gapAt: number | undefined;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        if (e.seq <= state.lastSeq) continue;
        if (e.seq !== state.lastSeq + 1) {
          gapAt = i;
          break;
        }
        batch.push(frames.get(i, conn.scope));
        state.lastSeq = e.seq;
      }
      const sent = conn.send(batch);
      if (sent.ok) {
        stats.messagesSent += batch.length;
        stats.bytesSent += sent.bytes;
      }
      if (gapAt !== undefined && !conn.closed) {
        const channel = [...state.channels][0] ?? `race:${stream}`;
        void fillGap(deps.attach, conn, stream, state, entries.slice(gapAt), () =>
          attachStream(deps, conn, stream, channel, undefined, 'resync'),
        );
      }
    }
  }

  if (registry.firehose.size === 0) return;
  for (const conn of registry.firehose) {
    if (conn.streams.has(stream)) continue; // its race or meeting subscription already delivers these
    const filter = conn.channels.get('firehose');
    if (filter?.kind !== 'firehose') continue;
    const batch: Outgoing[] = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind === 'event' && matchesFilter(filter.filter, deps.catalog, e))
        batch.push(frames.get(i, conn.scope));
    }
    const sent = conn.send(batch);
    if (sent.ok) {
      stats.messagesSent += batch.length;
      stats.bytesSent += sent.bytes;
    }
  }
}
