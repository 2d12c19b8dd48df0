/**
 * The subscription core when something went wrong, without sockets (harness.ts), on the manual wall clock:
 * the heartbeat (heartbeat.ts) naming each stream's head and finding a last batch the bus lost, reads that
 * fail while attaching (retried with a back-off), and a log reset (another epoch) found live or at the
 * heartbeat.
 */
import type { SnapshotMessage } from '@racewire/client/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/events/envelope.js';
import { createMemoryEventLog } from '../../../src/store/memory-event-log.js';
import { addRace, type CoreHarness, raceDoc, startCore } from './harness.js';

let h: CoreHarness;
afterEach(async () => {
  await h?.close();
});

const label = (m: { type: string }) => `${m.type}${'seq' in m ? `:${m.seq}` : ''}`;

describe('subscription core: heartbeats', () => {
  it('sends a heartbeat every heartbeatMs with the head, epoch and staleness of each live stream', async () => {
    h = startCore({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    addRace(h, 'R2');
    await h.publishDoc('R1', raceDoc('R1', 0));
    h.catalog.stale.set('R1', 1234);
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    c.send({ op: 'subscribe', channel: 'race:R2' });
    await c.seen((m) => m.type === 'snapshot' && m.stream === 'R2');
    await h.clock.advance(4999);
    expect(c.received.some((m) => m.type === 'heartbeat')).toBe(false);
    await h.clock.advance(1);
    const hb = await c.seen((m) => m.type === 'heartbeat');
    const epoch = (await h.log.head('R1')).epoch;
    expect(hb).toEqual({
      type: 'heartbeat',
      time: h.clock.now(),
      streams: { R1: { seq: 1, epoch, staleMs: 1234 }, R2: { seq: 0, epoch, staleMs: null } },
    });
    await h.clock.advance(5000);
    expect(c.received.filter((m) => m.type === 'heartbeat')).toHaveLength(2);
  });

  it('delivers a last batch the bus dropped before the next heartbeat, which names the head seq and epoch', async () => {
    h = startCore({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c.seen<SnapshotMessage>((m) => m.type === 'snapshot');
    const publish = h.bus.publish;
    h.bus.publish = () => {}; // the last batch is appended but never reaches this node
    await h.publishDoc('R1', raceDoc('R1', 1), [{ type: 'odds.changed', data: {} }]);
    h.bus.publish = publish;
    await h.clock.advance(5000);
    const hb = await c.seen((m) => m.type === 'heartbeat');
    expect(c.received.map(label)).toEqual(['subscribed', 'snapshot:1', 'patch:2', 'event:3', 'heartbeat']);
    expect(hb).toMatchObject({ streams: { R1: { seq: 3, epoch: snap.epoch, staleMs: null } } });
  });
});

describe('subscription core: failed reads', () => {
  it('answers an internal error when the log fails, buffers nothing, and serves a resync asked for', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const realHead = h.log.head.bind(h.log);
    h.log.head = async () => {
      throw new Error('disk on fire');
    };
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.seen((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'internal',
      message: 'could not load stream R1; retrying with a snapshot',
    });
    await h.publishDoc('R1', raceDoc('R1', 1)); // not buffered for a failed attach
    h.log.head = realHead;
    c.send({ op: 'resync', stream: 'R1' });
    expect(await c.seen((m) => m.type === 'snapshot')).toMatchObject({
      stream: 'R1',
      seq: 2,
      reason: 'resync',
    });
    expect(c.received.map(label)).toEqual(['subscribed', 'error', 'snapshot:2']);
  });

  it('retries a stream whose read failed while attaching, on the wall clock, with a doubling back-off', async () => {
    h = startCore({ limits: { attachRetryMs: 1000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const realHead = h.log.head.bind(h.log);
    let failures = 2;
    h.log.head = async (stream) => {
      if (failures-- > 0) throw new Error('disk on fire');
      return realHead(stream);
    };
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.count((m) => m.type === 'error', 1);
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.clock.advance(999);
    expect(c.received.filter((m) => m.type === 'error')).toHaveLength(1);
    await h.clock.advance(1); // the first retry fails too; the next waits twice as long
    await c.count((m) => m.type === 'error', 2);
    await h.clock.advance(1999);
    expect(c.received.some((m) => m.type === 'snapshot')).toBe(false);
    await h.clock.advance(1);
    expect(await c.seen((m) => m.type === 'snapshot')).toMatchObject({
      stream: 'R1',
      seq: 2,
      reason: 'resync',
    });
    await h.publishDoc('R1', raceDoc('R1', 2));
    expect(await c.atSeq('R1', 3)).toMatchObject({ type: 'patch', base: 2 });
  });
});

describe('subscription core: a log reset', () => {
  /** The hub's log is reset under it: from now on it answers as a fresh log, of another epoch. */
  const resetLog = () => {
    const fresh = createMemoryEventLog();
    h.log.head = fresh.head.bind(fresh);
    h.log.read = fresh.read.bind(fresh);
    return fresh;
  };
  const appendFresh = (fresh: ReturnType<typeof createMemoryEventLog>) =>
    fresh.append('R1', {
      entries: [{ kind: 'snapshot', document: raceDoc('R1', 9) }],
      document: raceDoc('R1', 9),
      now: new Date(h.clock.now()),
    });

  it('sends a fresh snapshot, not the entry, when a live entry comes from another epoch', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    await h.publishDoc('R1', raceDoc('R1', 1));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c.seen<SnapshotMessage>((m) => m.type === 'snapshot');
    const reset: LogEntry & { epoch: string } = {
      kind: 'event',
      stream: 'R1',
      seq: 3,
      timestamp: new Date(h.clock.now()).toISOString(),
      epoch: 'another-epoch',
      event: {
        id: 'R1:3@another-epoch',
        type: 'odds.changed',
        timestamp: '',
        stream: 'R1',
        seq: 3,
        meetingId: 'M1',
        data: {},
      },
    };
    h.bus.publish([reset]);
    await c.count((m) => m.type === 'snapshot', 2);
    expect(c.received.at(-1)).toMatchObject({
      stream: 'R1',
      reason: 'epoch_mismatch',
      epoch: snap.epoch,
      seq: 2,
    });
    expect(c.received.some((m) => m.type === 'event')).toBe(false);
  });

  it('resyncs at the first live entry of the new epoch, with a snapshot of the new log, not the cached one', async () => {
    h = startCore();
    addRace(h, 'R1');
    for (let n = 0; n < 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen((m) => m.type === 'snapshot');
    const fresh = resetLog();
    const epoch = (await fresh.head('R1')).epoch;
    const entries = await appendFresh(fresh);
    // Seq 1 is below the subscriber's 4: only the epoch it carries tells it apart from a duplicate.
    h.bus.publish(entries.map((e) => ({ ...e, epoch })));
    await c.count((m) => m.type === 'snapshot', 2);
    expect(c.received.at(-1)).toEqual({
      type: 'snapshot',
      stream: 'R1',
      seq: 1,
      documentSeq: 1,
      epoch,
      reason: 'epoch_mismatch',
      document: raceDoc('R1', 9),
    });
  });

  it('resyncs at the next heartbeat when no entry of the new epoch arrived, and names the new head after', async () => {
    h = startCore({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    for (let n = 0; n < 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen((m) => m.type === 'snapshot');
    const fresh = resetLog();
    const epoch = (await fresh.head('R1')).epoch;
    await appendFresh(fresh);
    await h.clock.advance(5000);
    await c.count((m) => m.type === 'snapshot', 2);
    expect(c.received.filter((m) => m.type === 'snapshot').at(-1)).toMatchObject({
      stream: 'R1',
      reason: 'epoch_mismatch',
      epoch,
      seq: 1,
      document: raceDoc('R1', 9),
    });
    await h.clock.advance(5000);
    const beats = await c.count((m) => m.type === 'heartbeat' && 'R1' in m.streams, 1);
    expect(beats.at(-1)).toMatchObject({ streams: { R1: { seq: 1, epoch } } });
  });
});
