/**
 * The hub's position per stream (snapshot-source.ts: the seq last seen of each stream, and its head) goes
 * with the stream's activity, as docs/operations.md lists it: a stream neither written nor read for 6 hours
 * of wall time is forgotten, and at most 20,000 streams are held, the least recently seen going first. A
 * forgotten stream costs a log read at the next attach and leaves heartbeats to the subscriber's position.
 */
import { expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import type { RaceCatalog } from '../../../src/delivery/core/catalog.js';
import { checkTails, type HeartbeatDeps, heartbeatMessage } from '../../../src/delivery/core/heartbeat.js';
import type { Session } from '../../../src/delivery/core/session.js';
import { SnapshotSource, STREAM_IDLE_MS } from '../../../src/delivery/core/snapshot-source.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import { createFeed } from '../feed.js';
import { raceDoc } from './harness.js';

const snapshotEntry = (stream: string, seq = 1): LogEntry => ({
  kind: 'snapshot',
  stream,
  seq,
  timestamp: '2026-11-19T17:00:00.000Z',
  document: null,
});

const MINUTE = 60_000;

/** Streams whose position is held: its size, not a read, which would itself drop a stale one. */
const held = (source: SnapshotSource) => (source as unknown as { seen: { size: number } }).seen.size;

it('keeps the seq of 20,000 streams and forgets the least recently seen beyond them', () => {
  const source = new SnapshotSource(
    createFeed().log,
    1024,
    createManualClock(Date.parse('2026-11-19T17:00:00Z')),
  );
  for (let i = 0; i < 20_000; i++) source.observe([snapshotEntry(`race:R${i}`)]);
  expect(source.latest('race:R0')).toEqual({ seq: 1, epoch: undefined });
  expect(source.latest('race:R19999')).toEqual({ seq: 1, epoch: undefined });

  // R0 was just read, so R1 is now the least recently seen.
  source.observe([snapshotEntry('race:R20000')]);
  expect(source.latest('race:R1')).toBeUndefined();
  expect(source.latest('race:R0')).toEqual({ seq: 1, epoch: undefined });
  expect(source.latest('race:R20000')).toEqual({ seq: 1, epoch: undefined });
});

it('forgets a stream neither written nor read for 6 hours of wall time, and keeps one still read', async () => {
  expect(STREAM_IDLE_MS).toBe(6 * 60 * MINUTE);
  const wall = createManualClock(Date.parse('2026-11-19T17:00:00Z'));
  const source = new SnapshotSource(createFeed().log, 1024, wall);
  source.observe([snapshotEntry('race:quiet')]);
  source.observe([snapshotEntry('race:watched')]);

  await wall.advance(STREAM_IDLE_MS - MINUTE);
  expect(source.latest('race:watched')).toEqual({ seq: 1, epoch: undefined }); // a heartbeat reads it
  await wall.advance(MINUTE);
  expect(source.latest('race:quiet')).toEqual({ seq: 1, epoch: undefined }); // idle for exactly 6 h: kept

  // 'quiet' was last read at 6 h and 'watched' at 6 h less a minute: at 12 h and a minute both are idle.
  await wall.advance(STREAM_IDLE_MS + MINUTE);
  source.observe([snapshotEntry('race:busy', 1)]);
  expect(source.latest('race:quiet')).toBeUndefined();
  expect(source.latest('race:watched')).toBeUndefined();
  expect(source.latest('race:busy')).toEqual({ seq: 1, epoch: undefined });
});

it('sweeps idle streams that nothing asks about again, on a later delivery', async () => {
  const wall = createManualClock(Date.parse('2026-11-19T17:00:00Z'));
  const source = new SnapshotSource(createFeed().log, 1024, wall);
  for (let i = 0; i < 100; i++) source.observe([snapshotEntry(`race:old${i}`)]);
  await wall.advance(STREAM_IDLE_MS + 2 * MINUTE);
  source.observe([snapshotEntry('race:new')]);
  // The sweep ran on that delivery: only the new stream is held.
  expect(held(source)).toBe(1);
});

it('sweeps at most once a wall minute, so a stream gone idle just after a sweep waits for the next', async () => {
  const wall = createManualClock(Date.parse('2026-11-19T17:00:00Z'));
  const source = new SnapshotSource(createFeed().log, 1024, wall);
  source.observe([snapshotEntry('race:early')]);
  await wall.advance(STREAM_IDLE_MS - 10_000);
  source.observe([snapshotEntry('race:x')]); // a sweep: 'early' is 10 s short of idle
  await wall.advance(30_000);
  source.observe([snapshotEntry('race:y')]); // 'early' idle now, but the last sweep was 30 s ago
  expect(held(source)).toBe(3);
  await wall.advance(31_000);
  source.observe([snapshotEntry('race:z')]); // a minute and a second after the last sweep: swept
  expect(held(source)).toBe(3);
  expect(source.latest('race:early')).toBeUndefined();
});

it('reads a forgotten head from the log again, and gives the same snapshot', async () => {
  const feed = createFeed();
  const wall = createManualClock(Date.parse('2026-11-19T17:00:00Z'));
  const source = new SnapshotSource(feed.log, 1024 * 1024, wall);
  const doc = raceDoc('R1', 1);
  const [entry] = await feed.log.append('race:R1', {
    entries: [{ kind: 'snapshot', document: doc }],
    document: doc,
    now: new Date(0),
  });
  source.observe([entry!]);
  const first = await source.get('race:R1', 'partner', {});
  await wall.advance(STREAM_IDLE_MS + 2 * MINUTE);
  source.observe([snapshotEntry('race:R2')]);
  expect(source.latest('race:R1')).toBeUndefined();
  const again = await source.get('race:R1', 'partner', {});
  expect(again.head).toEqual(first.head);
  expect(again.document.equals(first.document)).toBe(true);
});

it("leaves a forgotten stream's heartbeat and tail check to the subscriber's own position", async () => {
  const wall = createManualClock(Date.parse('2026-11-19T17:00:00Z'));
  const source = new SnapshotSource(createFeed().log, 1024, wall);
  source.observe([snapshotEntry('race:R1', 9)]);
  const live = { phase: 'live', epoch: 'e1', lastSeq: 7 };
  const session = { streams: new Map([['race:R1', live]]) } as unknown as Session;
  const catalog = { staleness: () => 1_000 } as unknown as RaceCatalog;
  expect(heartbeatMessage(session, catalog, source, 0).streams['race:R1']).toEqual({
    seq: 9,
    epoch: 'e1',
    staleMs: 1_000,
  });

  await wall.advance(STREAM_IDLE_MS + MINUTE);
  expect(heartbeatMessage(session, catalog, source, 0).streams['race:R1']).toEqual({
    seq: 7,
    epoch: 'e1',
    staleMs: 1_000,
  });
  const reads: number[] = [];
  await checkTails({
    registry: { byStream: new Map([['race:R1', new Set([session])]]) },
    snapshots: source,
    log: {
      read: async (_stream: string, after: number) => {
        reads.push(after);
        return { ok: true, entries: [] };
      },
    },
    pageSize: 10,
    onTail: () => {},
    onReset: () => {},
    onTailError: () => {},
  } as unknown as HeartbeatDeps);
  expect(reads).toEqual([7]);
});
