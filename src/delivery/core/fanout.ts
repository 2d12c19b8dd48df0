/**
 * Live delivery of one bus batch (entries of one stream, in seq order). Each entry is serialised once per
 * variant; each connection gets one write for the whole batch. A connection whose copy would skip a seq has
 * the hole read from the log first (a distributed bus may drop a batch); an entry from another epoch (the log
 * was reset) gives a fresh snapshot. Conflated streams hold their entries for the next flush.
 */

import { type FirehoseFilter, matchesEventType, type StreamPosition } from '@racewire/client/protocol';
import type { LogEntry } from '../../events/envelope.js';
import type { RaceCatalog } from './catalog.js';
import { channelStreams, type ParsedChannel } from './channels.js';
import { holdForConflation } from './conflation.js';
import { BatchFrames } from './entry-messages.js';
import type { Outgoing } from './outgoing.js';
import type { Session } from './session.js';
import { epochOf } from './snapshot-source.js';
import { type AttachContext, attachStream, bufferLive, fillGap, resyncStream } from './stream-attach.js';
import type { StreamOptions } from './stream-options.js';

export interface FanoutDeps {
  catalog: RaceCatalog;
  attach: AttachContext;
}

/** A race or meeting channel to follow, resuming the streams in `from`, with its options. */
export interface ChannelRequest {
  channel: string;
  ch: ParsedChannel & { kind: 'race' | 'meeting' };
  options: StreamOptions;
  from?: Readonly<Record<string, StreamPosition>>;
  /** Runs before any stream message is queued (the WebSocket `subscribed` answer). */
  announce?: (streams: string[]) => void;
}

/**
 * Subscribes a session to a race or meeting channel: records it, and attaches each stream it covers now (a
 * meeting: its own stream and its races; races added later attach in `fanOut`), resuming those in `from`.
 */
export function subscribeChannel(deps: FanoutDeps, session: Session, req: ChannelRequest): string[] {
  const { channel, ch, options, from, announce } = req;
  const streams = channelStreams(ch, (m) => deps.catalog.racesOfMeeting(m));
  session.channels.set(channel, { ...ch, options });
  if (ch.kind === 'meeting') deps.attach.registry.addMeeting(session, ch.meetingId);
  announce?.(streams);
  for (const stream of streams) {
    const position = from && Object.hasOwn(from, stream) ? from[stream] : undefined;
    const existing = session.streams.get(stream);
    if (existing && !position) {
      existing.channels.add(channel); // already delivered through another channel
      continue;
    }
    attachStream(deps.attach, session, stream, channel, options, position);
  }
  return streams;
}

export function matchesFilter(
  filter: FirehoseFilter | undefined,
  catalog: RaceCatalog,
  entry: LogEntry & { kind: 'event' },
): boolean {
  if (!filter) return true;
  if (filter.types && !matchesEventType(filter.types, entry.event.type)) return false;
  if (!filter.countries && !filter.codes) return true;
  const raceId = entry.event.raceId ?? catalog.racesOfMeeting(entry.event.meetingId)[0];
  const race = raceId === undefined ? undefined : catalog.race(raceId);
  if (!race) return false;
  if (filter.countries && !filter.countries.includes(race.country)) return false;
  if (filter.codes && !filter.codes.includes(race.category)) return false;
  return true;
}

const NO_OPTIONS: StreamOptions = {};

export function fanOut(deps: FanoutDeps, entries: readonly LogEntry[]): void {
  const first = entries[0];
  if (!first) return;
  const stream = first.stream;
  const frames = new BatchFrames(entries);
  const { registry } = deps.attach;
  deps.attach.snapshots.observe(entries);

  // A race that joined a subscribed meeting after the subscription: attach it (snapshot, then live).
  if (registry.byMeeting.size > 0 && !stream.startsWith('meeting:')) {
    const meetingId = deps.catalog.race(stream)?.meetingId;
    const watchers = meetingId === undefined ? undefined : registry.byMeeting.get(meetingId);
    if (watchers) {
      const channel = `meeting:${meetingId}`;
      for (const session of watchers) {
        if (session.streams.has(stream)) continue;
        const options = session.channels.get(channel)?.options ?? NO_OPTIONS;
        attachStream(deps.attach, session, stream, channel, options);
      }
    }
  }

  const epoch = epochOf(first);
  for (const session of registry.byStream.get(stream) ?? []) {
    const state = session.streams.get(stream);
    if (!state || state.phase === 'pending') continue;
    if (state.phase === 'attaching') {
      bufferLive(state, entries, deps.attach.limits.replayPageSize);
      continue;
    }
    if (epoch !== undefined && epoch !== state.epoch) {
      resyncStream(deps.attach, session, stream, state, 'epoch_mismatch');
      continue;
    }
    if (state.options.conflateMs !== undefined) {
      holdForConflation(deps.attach, session, stream, state, entries);
      continue;
    }
    const batch: Outgoing[] = [];
    let gapAt: number | undefined;
    let needsSnapshot = false;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.seq <= state.lastSeq) continue;
      if (e.seq !== state.lastSeq + 1) {
        gapAt = i;
        break;
      }
      const o = frames.get(i, session.scope, state.options);
      if (!o) {
        needsSnapshot = true;
        break;
      }
      batch.push(o);
      state.lastSeq = e.seq;
      if (e.kind !== 'event') state.documentSeq = e.seq;
    }
    if (batch.length > 0) session.send(batch);
    if (needsSnapshot) resyncStream(deps.attach, session, stream, state);
    else if (gapAt !== undefined && !session.closed)
      void fillGap(deps.attach, session, stream, state, entries.slice(gapAt));
  }

  if (registry.firehose.size === 0) return;
  for (const session of registry.firehose) {
    if (session.streams.has(stream)) continue; // its race or meeting subscription already delivers these
    const filter = session.channels.get('firehose');
    if (filter?.kind !== 'firehose') continue;
    const batch: Outgoing[] = [];
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind === 'event' && matchesFilter(filter.filter, deps.catalog, e)) {
        const o = frames.get(i, session.scope, NO_OPTIONS);
        if (o) batch.push(o);
      }
    }
    if (batch.length > 0) session.send(batch);
  }
}
