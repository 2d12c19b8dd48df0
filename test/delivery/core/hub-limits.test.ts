/**
 * What the subscription core refuses, without sockets (harness.ts): bad client messages, the per-key
 * message rate, connections and channels (admission.ts), and the slow-consumer rule on the manual wall
 * clock (a sink whose peer stopped reading holds what it is written, as a socket would).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  addRace,
  type CoreHarness,
  MAX_MESSAGE_BYTES,
  PARTNER,
  PUBLIC,
  raceDoc,
  startCore,
  turns,
} from './harness.js';

let h: CoreHarness;
afterEach(async () => {
  await h?.close();
});

const isError = (m: { type: string }) => m.type === 'error';
const errors = (c: { received: readonly { type: string }[] }) => c.received.filter(isError);

describe('subscription core: client messages', () => {
  it('answers malformed, oversized, binary, unknown and invalid messages with their codes and stays usable', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send('{not json');
    c.send({ op: 'ping', pad: 'x'.repeat(MAX_MESSAGE_BYTES) });
    c.send({ op: 'ping' }, { binary: true });
    c.send({ op: 'dance', reqId: 'r1' });
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: -1, epoch: 'e' } }, reqId: 'r2' });
    c.send('[1,2]');
    c.send({ op: 'subscribe', channel: 'planet:mars', reqId: 'r3' });
    c.send({ op: 'unsubscribe', channel: 'race:R9', reqId: 'r4' });
    c.send({ op: 'resync', stream: 'R9', reqId: 'r5' });
    c.send({ op: 'subscribe', channel: 'firehose', fields: ['/race/status'], reqId: 'r6' });
    c.send({ op: 'subscribe', channel: 'race:R1', filter: { countries: ['NZ'] }, reqId: 'r7' });
    await c.count(isError, 11); // subscription work is deferred: its answers come on a later turn
    await c.roundTrip('alive');
    expect(errors(c).map((m) => [('code' in m && m.code) || '', ('reqId' in m && m.reqId) || ''])).toEqual([
      ['bad_json', ''],
      ['message_too_large', ''],
      ['bad_request', ''],
      ['unknown_op', 'r1'],
      ['bad_request', 'r2'],
      ['bad_request', ''],
      ['unknown_channel', 'r3'],
      ['not_subscribed', 'r4'],
      ['not_subscribed', 'r5'],
      ['bad_request', 'r6'],
      ['bad_request', 'r7'],
    ]);
    expect(c.stats.clientErrors).toBe(11);
    expect(c.received.at(-1)).toEqual({ type: 'pong', time: h.clock.now(), reqId: 'alive' });
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.seen((m) => m.type === 'snapshot')).toMatchObject({ stream: 'R1', seq: 1 });
  });

  it('refuses bad fields and conflateMs with bad_request', async () => {
    h = startCore();
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', fields: ['/runners/0/odds'], reqId: 'f' });
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 5, reqId: 'c' });
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 60_001, reqId: 'c2' });
    c.send({ op: 'subscribe', channel: 'firehose', conflateMs: 1000, reqId: 'h' });
    await c.count(isError, 4);
    await turns();
    expect(errors(c)).toMatchObject([
      { code: 'bad_request', reqId: 'f' },
      { code: 'bad_request', reqId: 'c', message: 'conflateMs: an integer from 100 to 60000' },
      { code: 'bad_request', reqId: 'c2' },
      { code: 'bad_request', reqId: 'h' },
    ]);
    expect(h.hub.stats().ws.subscriptions).toBe(0);
  });
});

describe('subscription core: admission', () => {
  it('rate-limits messages per key, across its connections, and refills on the wall clock', async () => {
    h = startCore({ limits: { messagesPerSecond: 1, messageBurst: 2 } });
    const a = h.connect();
    const b = h.connect();
    const other = h.connect(PUBLIC);
    a.send({ op: 'ping', reqId: '1' });
    b.send({ op: 'ping', reqId: '2' });
    a.send({ op: 'ping', reqId: '3' });
    other.send({ op: 'ping', reqId: 'o' }); // another key has its own bucket
    await a.count(isError, 1);
    await turns();
    expect(a.received.map((m) => m.type)).toEqual(['pong', 'error']);
    expect(errors(a)[0]).toMatchObject({ code: 'rate_limited' });
    expect(b.received.map((m) => m.type)).toEqual(['pong']);
    expect(other.received.map((m) => m.type)).toEqual(['pong']);
    await h.clock.advance(999);
    a.send({ op: 'ping', reqId: '4' });
    await a.count(isError, 2);
    await h.clock.advance(1000); // one token a second; the refused message cost nothing
    a.send({ op: 'ping', reqId: '5' });
    await a.seen((m) => m.type === 'pong' && m.reqId === '5');
    expect(a.received.map((m) => m.type)).toEqual(['pong', 'error', 'error', 'pong']);
  });

  it('refuses a connection past the per-key limit, counts it, and admits one again when another closes', () => {
    h = startCore({ limits: { maxConnectionsPerKey: 2 } });
    const a = h.connect();
    h.connect();
    h.connect(PUBLIC);
    expect(() => h.connect()).toThrow('refused: too_many_connections');
    expect(() => h.connect(PARTNER, 'sse')).toThrow('refused: too_many_connections'); // both transports count
    expect(h.hub.stats().ws).toMatchObject({ connections: 3, connectionsTotal: 3, rejected: 1 });
    expect(h.hub.stats().sse.rejected).toBe(1);
    a.disconnect();
    a.disconnect(); // a second close report changes nothing
    expect(h.hub.stats().ws.connections).toBe(2);
    expect(h.connect(PARTNER, 'sse').session.transport).toBe('sse');
  });

  it('charges an SSE request one token per channel, refusing it rate_limited when the bucket is short', () => {
    h = startCore({ limits: { messagesPerSecond: 1, messageBurst: 3 } });
    const sink = { write: () => true, buffered: () => 0, onDrain() {}, end() {}, destroy() {} };
    expect(h.hub.open(PARTNER, 'sse', sink, 2).ok).toBe(true);
    expect(h.hub.open(PARTNER, 'sse', sink, 2)).toEqual({
      ok: false,
      code: 'rate_limited',
      message: 'too many requests; slow down',
    });
  });

  it('refuses channels past the per-connection and per-key limits, and counts a channel once', async () => {
    h = startCore({ limits: { maxSubscriptions: 2, maxSubscriptionsPerKey: 3 } });
    for (const r of ['R1', 'R2', 'R3']) addRace(h, r);
    const a = h.connect();
    const b = h.connect();
    a.send({ op: 'subscribe', channel: 'race:R1' });
    a.send({ op: 'subscribe', channel: 'race:R1' }); // the same channel again: no second count
    a.send({ op: 'subscribe', channel: 'race:R2' });
    a.send({ op: 'subscribe', channel: 'race:R3', reqId: 'conn' });
    b.send({ op: 'subscribe', channel: 'race:R3' });
    b.send({ op: 'subscribe', channel: 'firehose', reqId: 'key' });
    await a.count(isError, 1);
    await b.count(isError, 1);
    await turns();
    expect(errors(a)).toEqual([
      { type: 'error', code: 'too_many_subscriptions', message: 'at most 2 channels', reqId: 'conn' },
    ]);
    expect(errors(b)).toEqual([
      { type: 'error', code: 'too_many_subscriptions', message: 'at most 3 channels per key', reqId: 'key' },
    ]);
    expect(h.hub.stats().ws.subscriptions).toBe(3);
    a.disconnect(); // its channels are given back to the key
    b.send({ op: 'subscribe', channel: 'firehose', reqId: 'again' });
    await b.seen((m) => m.type === 'subscribed' && m.reqId === 'again');
    expect(h.hub.stats().ws.subscriptions).toBe(2);
  });
});

describe('subscription core: slow consumers', () => {
  const big = (n: number) => ({ ...raceDoc('R1', n), blob: `${n}:${'y'.repeat(40_000)}` });

  it('closes with 4008 a subscriber that owes too much for slowConsumerMs of wall time, and no sooner', async () => {
    const limits = { maxBufferedBytes: 64 * 1024, slowConsumerMs: 10_000, slowCloseGraceMs: 5_000 };
    h = startCore({ limits });
    addRace(h, 'R1');
    await h.publishDoc('R1', big(0));
    const slow = h.connect();
    const fast = h.connect();
    for (const c of [slow, fast]) c.send({ op: 'subscribe', channel: 'race:R1' });
    await slow.seen((m) => m.type === 'snapshot');
    await fast.seen((m) => m.type === 'snapshot');
    slow.sink.stopReading();
    for (let n = 1; n <= 4; n++) await h.publishDoc('R1', big(n));
    await fast.atSeq('R1', 5);
    expect(slow.session.owed()).toBeGreaterThan(limits.maxBufferedBytes);
    await h.clock.advance(limits.slowConsumerMs - 1);
    expect(slow.sink.ended).toBeUndefined();
    await h.clock.advance(1);
    expect(slow.sink.ended).toEqual({ code: 4008, reason: 'slow consumer: reconnect and resume' });
    expect(h.hub.stats().ws.slowDisconnects).toBe(1);
    await h.clock.advance(limits.slowCloseGraceMs - 1);
    expect(slow.sink.destroyed).toBe(false); // it gets the grace to read its close
    await h.clock.advance(1);
    expect(slow.sink.destroyed).toBe(true);
    // The reader that kept up is untouched and still live.
    expect(fast.sink.ended).toBeUndefined();
    await h.publishDoc('R1', big(5));
    await fast.atSeq('R1', 6);
  });

  it('forgives a subscriber that catches up before slowConsumerMs, and closes at once one past the hard limit', async () => {
    h = startCore({ limits: { maxBufferedBytes: 64 * 1024, hardBufferedBytes: 256 * 1024 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', big(0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen((m) => m.type === 'snapshot');
    c.sink.stopReading();
    for (let n = 1; n <= 3; n++) await h.publishDoc('R1', big(n));
    await h.clock.advance(5_000);
    c.sink.read();
    await c.atSeq('R1', 4);
    await h.clock.advance(10_000);
    expect(c.sink.ended).toBeUndefined();
    c.sink.stopReading();
    for (let n = 4; n <= 10 && !c.sink.ended; n++) await h.publishDoc('R1', big(n));
    expect(c.sink.ended?.code).toBe(4008);
    expect(h.clock.now()).toBe(Date.parse('2026-11-22T10:00:15Z')); // at once: no time passed
  });
});
