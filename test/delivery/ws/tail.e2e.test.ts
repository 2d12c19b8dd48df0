/**
 * The gateway side of issue 14.3: a lost last batch is found at the next heartbeat (which names each stream's
 * head seq and epoch), a stream whose read failed while attaching is retried with a snapshot, and entries of
 * another epoch (the log was reset) give a fresh snapshot instead of being skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src/events/envelope.js';
import { createMemoryEventLog } from '../../../src/store/memory-event-log.js';
import { addRace, clientPool, type Harness, raceDoc, startHarness } from './harness.js';

let h: Harness;
const clients = clientPool();
const partner = () => clients.partner(h.url);
afterEach(async () => {
  clients.terminateAll();
  await h?.close();
});

describe('lost tails and failed attaches', () => {
  it('delivers a last batch the bus dropped before the next heartbeat, which names the head seq and epoch', async () => {
    h = await startHarness({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c.nextOfType('snapshot');
    const publish = h.bus.publish;
    h.bus.publish = () => {}; // the last batch is appended but never reaches this node
    await h.publishDoc('R1', raceDoc('R1', 1), [{ type: 'odds.changed', data: {} }]);
    h.bus.publish = publish;
    await h.clock.advance(5000);
    const hb = await c.nextOfType('heartbeat');
    const kinds = c.received.map((m) => `${m.type}${'seq' in m ? `:${m.seq}` : ''}`);
    expect(kinds.slice(kinds.indexOf('snapshot:1'))).toEqual([
      'snapshot:1',
      'patch:2',
      'event:3',
      'heartbeat',
    ]);
    expect(hb.streams).toEqual({ R1: { seq: 3, epoch: snap.epoch, staleMs: null } });
  });

  it('retries a stream whose read failed while attaching, on the wall clock, with a snapshot', async () => {
    h = await startHarness({ limits: { attachRetryMs: 1000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const realHead = h.log.head.bind(h.log);
    let failures = 2;
    h.log.head = async (stream) => {
      if (failures-- > 0) throw new Error('disk on fire');
      return realHead(stream);
    };
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'internal' });
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.clock.advance(1000); // first retry fails too; the next waits twice as long
    expect(await c.nextOfType('error')).toMatchObject({ code: 'internal' });
    await h.clock.advance(1999);
    expect(c.received.some((m) => m.type === 'snapshot')).toBe(false);
    await h.clock.advance(1);
    expect(await c.nextOfType('snapshot')).toMatchObject({ stream: 'R1', seq: 2, reason: 'resync' });
    await h.publishDoc('R1', raceDoc('R1', 2));
    expect(await c.nextOfType('patch')).toMatchObject({ seq: 3, base: 2 });
  });

  it('sends a fresh snapshot when live entries come from another epoch (the log was reset)', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    await h.publishDoc('R1', raceDoc('R1', 1));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c.nextOfType('snapshot');
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
    const again = await c.nextOfType('snapshot');
    expect(again).toMatchObject({ stream: 'R1', reason: 'epoch_mismatch', epoch: snap.epoch, seq: 2 });
    expect(c.received.some((m) => m.type === 'event')).toBe(false);
  });
});

describe('a log reset', () => {
  /** The hub's log is reset under it: from now on it answers as a fresh log, of another epoch. */
  const resetLog = () => {
    const fresh = createMemoryEventLog();
    h.log.head = fresh.head.bind(fresh);
    h.log.read = fresh.read.bind(fresh);
    return fresh;
  };

  it('resyncs at the first live entry of the new epoch, with a snapshot of the new log, not the cached one', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    for (let n = 0; n < 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const old = await c.nextOfType('snapshot');
    const fresh = resetLog();
    const epoch = (await fresh.head('R1')).epoch;
    const entries = await fresh.append('R1', {
      entries: [{ kind: 'snapshot', document: raceDoc('R1', 9) }],
      document: raceDoc('R1', 9),
      now: new Date(h.clock.now()),
    });
    // Seq 1 is below the subscriber's 4: only the epoch it carries tells it apart from a duplicate.
    h.bus.publish(entries.map((e) => ({ ...e, epoch })));
    const again = await c.next((m) => m.type === 'snapshot' && m !== old);
    expect(again).toMatchObject({
      stream: 'R1',
      reason: 'epoch_mismatch',
      epoch,
      seq: 1,
      document: raceDoc('R1', 9),
    });
  });

  it('resyncs at the next heartbeat when no entry of the new epoch arrived, and names the new head after', async () => {
    h = await startHarness({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    for (let n = 0; n < 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    const old = await c.nextOfType('snapshot');
    const fresh = resetLog();
    const epoch = (await fresh.head('R1')).epoch;
    await fresh.append('R1', {
      entries: [{ kind: 'snapshot', document: raceDoc('R1', 9) }],
      document: raceDoc('R1', 9),
      now: new Date(h.clock.now()),
    });
    await h.clock.advance(5000);
    const again = await c.next((m) => m.type === 'snapshot' && m !== old);
    expect(again).toMatchObject({
      stream: 'R1',
      reason: 'epoch_mismatch',
      epoch,
      seq: 1,
      document: raceDoc('R1', 9),
    });
    await h.clock.advance(5000);
    const hb = await c.next((m) => m.type === 'heartbeat' && 'R1' in m.streams);
    expect(hb).toMatchObject({ streams: { R1: { seq: 1, epoch } } });
  });
});

describe('live entries while a stream attaches', () => {
  it('drops a full buffer and reads those entries back from the log, so the client still gets every seq once', async () => {
    h = await startHarness({ limits: { replayPageSize: 3 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    for (let n = 1; n <= 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const epoch = (await h.log.head('R1')).epoch;
    // Hold the resume's first read while ten more entries arrive live: more than the buffer keeps.
    const realRead = h.log.read.bind(h.log);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let reading!: () => void;
    const started = new Promise<void>((r) => {
      reading = r;
    });
    h.log.read = async (...args) => {
      const result = await realRead(...args);
      reading();
      await gate;
      return result;
    };
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 1, epoch } } });
    await started;
    for (let n = 5; n <= 14; n++) await h.publishDoc('R1', raceDoc('R1', n));
    h.log.read = realRead;
    release();
    await c.next((m) => 'seq' in m && m.seq === 15);
    const seqs = c.received.filter((m) => m.type === 'patch').map((m) => (m as { seq: number }).seq);
    expect(seqs).toEqual(Array.from({ length: 14 }, (_, i) => i + 2));
  });
});
