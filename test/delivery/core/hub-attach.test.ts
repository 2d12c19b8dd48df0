/**
 * The subscription core bringing clients onto streams and keeping them live, without sockets (harness.ts):
 * snapshot then live, resume, a batch the bus dropped, live entries while history is read, positions the
 * log no longer holds, meetings, the firehose, unsubscribe and close. Each client's copy is rebuilt with
 * `follow`, which throws on a gap, a duplicate or a wrong base.
 */
import type { ServerMessage, SnapshotMessage } from '@racewire/client/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { follow } from '../support/follow.js';
import { addRace, type CoreHarness, raceDoc, startCore } from './harness.js';

let h: CoreHarness;
afterEach(async () => {
  await h?.close();
});

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const isType = (type: string) => (m: { type: string }) => m.type === type;
/** Each patch as [seq, base]: a resumed client's copy must take every one in turn. */
const patchSeqs = (messages: readonly ServerMessage[]) =>
  messages.flatMap((m) => (m.type === 'patch' ? [[m.seq, m.base]] : []));

describe('subscription core: attach and live delivery', () => {
  it('answers subscribed, then a snapshot, then every patch and event, so the copy equals the log document', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', reqId: 'a' });
    const snap = await c.seen<SnapshotMessage>(isType('snapshot'));
    expect(c.received[0]).toEqual({ type: 'subscribed', channel: 'race:R1', streams: ['R1'], reqId: 'a' });
    expect(c.received[1]).toBe(snap);
    expect(snap).toMatchObject({ stream: 'R1', seq: 1, documentSeq: 1, document: raceDoc('R1', 0) });
    const epoch = (await h.log.head('R1')).epoch;
    expect(snap.epoch).toBe(epoch);
    for (let n = 1; n <= 20; n++)
      await h.publishDoc('R1', raceDoc('R1', n), n % 5 === 0 ? [{ type: 'odds.changed', data: { n } }] : []);
    const head = await h.log.head('R1');
    await c.atSeq('R1', head.seq);
    const copy = follow(c.received, 'R1');
    expect(copy.seqs).toEqual(range(1, head.seq));
    expect(copy.doc).toEqual(head.document);
    const events = c.received.filter(isType('event'));
    expect(events.map((e) => ('seq' in e ? e.seq : 0))).toEqual([7, 13, 19, 25]);
    expect(events[0]).toMatchObject({
      stream: 'R1',
      event: { type: 'odds.changed', id: `R1:7@${epoch}`, data: { n: 5 } },
    });
  });

  it('resumes after a disconnect with exactly the missed entries, then live, with nothing twice', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c1 = h.connect();
    c1.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c1.seen<SnapshotMessage>(isType('snapshot'));
    for (let n = 1; n <= 5; n++) await h.publishDoc('R1', raceDoc('R1', n));
    await c1.atSeq('R1', 6);
    c1.disconnect();
    for (let n = 6; n <= 12; n++)
      await h.publishDoc('R1', raceDoc('R1', n), [{ type: 'odds.changed', data: { n } }]);
    expect(c1.received.at(-1)).toMatchObject({ seq: 6 }); // a closed session is sent nothing

    const c2 = h.connect();
    c2.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 6, epoch: snap.epoch! } } });
    const resumed = await c2.seen(isType('resumed'));
    expect(resumed).toEqual({ type: 'resumed', stream: 'R1', epoch: snap.epoch, fromSeq: 6 });
    await h.publishDoc('R1', raceDoc('R1', 13));
    const head = await h.log.head('R1');
    await c2.atSeq('R1', head.seq);
    expect(c2.received.some(isType('snapshot'))).toBe(false);
    const copy = follow([...c1.received, ...c2.received], 'R1');
    expect(copy.seqs).toEqual(range(1, head.seq));
    expect(copy.doc).toEqual(head.document);
  });

  it('reads a batch the bus dropped from the log and sends it before the next, not a snapshot', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen(isType('snapshot'));
    await h.publishDoc('R1', raceDoc('R1', 1));
    const publish = h.bus.publish;
    h.bus.publish = () => {}; // appended, never published: a distributed bus lost it
    await h.publishDoc('R1', raceDoc('R1', 2), [{ type: 'odds.changed', data: { n: 2 } }]);
    h.bus.publish = publish;
    await h.publishDoc('R1', raceDoc('R1', 3));
    const head = await h.log.head('R1');
    await c.atSeq('R1', head.seq);
    expect(c.received.filter(isType('snapshot'))).toHaveLength(1);
    const copy = follow(c.received, 'R1');
    expect(copy.seqs).toEqual(range(1, head.seq));
    expect(copy.doc).toEqual(head.document);
  });

  it('buffers live entries published while history is read and delivers each once, in order', async () => {
    h = startCore();
    addRace(h, 'R1');
    for (let n = 0; n <= 3; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const epoch = (await h.log.head('R1')).epoch;
    const gate = holdReads(h);
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 2, epoch } } });
    await gate.started;
    for (let n = 4; n <= 6; n++) await h.publishDoc('R1', raceDoc('R1', n));
    gate.release();
    await c.atSeq('R1', 7);
    expect(patchSeqs(c.received)).toEqual([3, 4, 5, 6, 7].map((seq) => [seq, seq - 1]));
    expect(c.received.some(isType('snapshot'))).toBe(false);
  });

  it('drops a full buffer and reads those entries back from the log, so the client still gets every seq once', async () => {
    h = startCore({ limits: { replayPageSize: 3 } });
    addRace(h, 'R1');
    for (let n = 0; n <= 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const epoch = (await h.log.head('R1')).epoch;
    const gate = holdReads(h);
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 1, epoch } } });
    await gate.started;
    // Ten entries arrive live while the first page is held: more than the page-sized buffer keeps.
    for (let n = 5; n <= 14; n++) await h.publishDoc('R1', raceDoc('R1', n));
    gate.release();
    await c.atSeq('R1', 15);
    expect(patchSeqs(c.received)).toEqual(range(2, 15).map((seq) => [seq, seq - 1]));
    expect(c.received.some(isType('snapshot'))).toBe(false);
  });

  it('tells a client whose position is older than the window that it was not resumed, with a snapshot', async () => {
    h = startCore({ logOptions: { window: 3 } });
    addRace(h, 'R1');
    for (let n = 0; n <= 10; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const epoch = (await h.log.head('R1')).epoch;
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 2, epoch } } });
    expect(await c.seen(isType('snapshot'))).toEqual({
      type: 'snapshot',
      stream: 'R1',
      seq: 11,
      documentSeq: 11,
      epoch,
      resumed: false,
      reason: 'too_old',
      document: raceDoc('R1', 10),
    });
    expect(c.received.some(isType('resumed'))).toBe(false);
  });

  it('tells a client holding a position from another epoch that it was not resumed', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 1, epoch: 'another-epoch' } } });
    expect(await c.seen(isType('snapshot'))).toMatchObject({
      resumed: false,
      reason: 'epoch_mismatch',
      seq: 1,
      epoch: (await h.log.head('R1')).epoch,
    });
  });

  it('covers every race of a meeting and its meeting stream, including a race added later', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'meeting:M1' });
    expect(await c.seen(isType('subscribed'))).toMatchObject({ streams: ['meeting:M1', 'R1'] });
    await c.seen((m) => m.type === 'snapshot' && m.stream === 'meeting:M1');
    await c.seen((m) => m.type === 'snapshot' && m.stream === 'R1');
    expect(h.hub.subscriberCounts()).toEqual(new Map([['R1', 1]]));
    addRace(h, 'R2');
    expect(h.hub.subscriberCounts()).toEqual(
      new Map([
        ['R1', 1],
        ['R2', 1],
      ]),
    );
    await h.publishDoc('R2', raceDoc('R2', 0));
    await h.publishDoc('R2', raceDoc('R2', 1));
    await h.publishEvent('meeting:M1', 'meeting.race_added', { raceId: 'R2' });
    await c.seen((m) => m.type === 'event' && m.stream === 'meeting:M1');
    await c.atSeq('R2', 2);
    expect(follow(c.received, 'R2').doc).toEqual(raceDoc('R2', 1));
    c.send({ op: 'unsubscribe', channel: 'meeting:M1', reqId: 'u' });
    expect(await c.seen(isType('unsubscribed'))).toEqual({
      type: 'unsubscribed',
      channel: 'meeting:M1',
      reqId: 'u',
    });
    expect(h.hub.subscriberCounts().size).toBe(0);
    expect(h.hub.stats().ws.subscriptions).toBe(0);
  });

  it('delivers only matching events on a filtered firehose', async () => {
    h = startCore();
    addRace(h, 'R1', 'M1', 'AUS', 'T');
    addRace(h, 'R2', 'M2', 'NZ', 'G');
    const c = h.connect();
    c.send({
      op: 'subscribe',
      channel: 'firehose',
      filter: { countries: ['NZ'], types: ['runner.scratched'] },
    });
    expect(await c.seen(isType('subscribed'))).toMatchObject({ channel: 'firehose', streams: [] });
    await h.publishDoc('R2', raceDoc('R2', 0), [{ type: 'odds.changed', data: {} }]);
    await h.publishEvent('R1', 'runner.scratched', { entrantId: 'E1' });
    await h.publishEvent('R2', 'runner.scratched', { entrantId: 'E2' });
    await c.roundTrip();
    const delivered = c.received.filter(
      (m) => m.type === 'event' || m.type === 'patch' || m.type === 'snapshot',
    );
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      stream: 'R2',
      seq: 3,
      event: { type: 'runner.scratched', data: { entrantId: 'E2' } },
    });
  });

  it('stops delivering a race after unsubscribe', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen(isType('snapshot'));
    c.send({ op: 'unsubscribe', channel: 'race:R1' });
    await c.seen(isType('unsubscribed'));
    await h.publishDoc('R1', raceDoc('R1', 1));
    await c.roundTrip();
    expect(c.received.filter(isType('patch'))).toEqual([]);
    c.send({ op: 'unsubscribe', channel: 'race:R1', reqId: 'again' });
    expect(await c.seen(isType('error'))).toMatchObject({ code: 'not_subscribed', reqId: 'again' });
  });

  it('ends every session with 1001 on close and opens none after', async () => {
    h = startCore();
    const a = h.connect();
    const b = h.connect();
    await h.hub.close();
    expect(a.sink.ended).toEqual({ code: 1001, reason: 'server going away: reconnect and resume' });
    expect(b.sink.ended?.code).toBe(1001);
    expect(() => h.connect()).toThrow('refused: too_many_connections');
  });
});

/** Holds every log read (after it read) until `release`: history is "being read" meanwhile. */
function holdReads(feed: CoreHarness) {
  const realRead = feed.log.read.bind(feed.log);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let reading!: () => void;
  const started = new Promise<void>((r) => {
    reading = r;
  });
  feed.log.read = async (...args) => {
    const result = await realRead(...args);
    reading();
    await gate;
    return result;
  };
  return {
    started,
    release() {
      feed.log.read = realRead;
      release();
    },
  };
}
