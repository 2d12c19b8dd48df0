import type { SnapshotMessage } from '@racewire/client/protocol';
import fjp from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { follow } from '../support/follow.js';
import { addRace, clientPool, type Harness, PARTNER_KEY, raceDoc, startHarness } from './harness.js';

let h: Harness;
const clients = clientPool();
const client = clients.client;
const partner = () => clients.partner(h.url);

afterEach(async () => {
  clients.terminateAll();
  await h?.close();
});

describe('WebSocket gateway end to end', () => {
  it('sends a snapshot then every patch and event so the client ends with the document the log holds', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    expect((await c.nextOfType('welcome')).scope).toBe('partner');
    c.send({ op: 'subscribe', channel: 'race:R1', reqId: 'a' });
    expect(await c.nextOfType('subscribed')).toEqual({
      type: 'subscribed',
      channel: 'race:R1',
      streams: ['R1'],
      reqId: 'a',
    });
    const snap = await c.nextOfType('snapshot');
    expect(snap).toMatchObject({ stream: 'R1', seq: 1, documentSeq: 1, document: raceDoc('R1', 0) });
    expect(typeof snap.epoch).toBe('string');
    for (let n = 1; n <= 20; n++) {
      await h.publishDoc('R1', raceDoc('R1', n), n % 5 === 0 ? [{ type: 'odds.changed', data: { n } }] : []);
    }
    const head = await h.log.head('R1');
    await c.next((m) => 'seq' in m && m.seq === head.seq);
    const copy = follow(c.received, 'R1');
    expect(copy.doc).toEqual(head.document);
    expect(copy.seq).toBe(head.seq);
    const events = c.received.filter((m) => m.type === 'event');
    expect(events).toHaveLength(4);
    expect(events[0]).toMatchObject({
      stream: 'R1',
      event: { type: 'odds.changed', id: `R1:${events[0]!.seq}@${head.epoch}` },
    });
  });

  it('resumes after a disconnect with exactly the missed entries, then live, with nothing twice', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c1 = partner();
    c1.send({ op: 'subscribe', channel: 'race:R1' });
    const snap = await c1.nextOfType('snapshot');
    for (let n = 1; n <= 5; n++) await h.publishDoc('R1', raceDoc('R1', n));
    await c1.next((m) => m.type === 'patch' && m.seq === 6);
    c1.ws.terminate();
    await c1.closed;
    for (let n = 6; n <= 12; n++)
      await h.publishDoc('R1', raceDoc('R1', n), [{ type: 'odds.changed', data: { n } }]);

    const c2 = partner();
    c2.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 6, epoch: snap.epoch! } } });
    expect(await c2.nextOfType('resumed')).toEqual({
      type: 'resumed',
      stream: 'R1',
      epoch: snap.epoch,
      fromSeq: 6,
    });
    await h.publishDoc('R1', raceDoc('R1', 13));
    const head = await h.log.head('R1');
    await c2.next((m) => 'seq' in m && m.seq === head.seq);
    expect(c2.received.some((m) => m.type === 'snapshot')).toBe(false);
    // Rebuild from the first connection's copy plus the resumed stream.
    const copy = follow([...c1.received, ...c2.received], 'R1');
    expect(copy.seqs).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
    expect(copy.doc).toEqual(head.document);
  });

  it('reads a batch the bus dropped from the log and sends it before the next, not a snapshot', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.nextOfType('snapshot');
    await h.publishDoc('R1', raceDoc('R1', 1));
    // A batch appended but never published (a distributed bus lost it), then the next one is published.
    const publish = h.bus.publish;
    h.bus.publish = () => {};
    await h.publishDoc('R1', raceDoc('R1', 2), [{ type: 'odds.changed', data: { n: 2 } }]);
    h.bus.publish = publish;
    await h.publishDoc('R1', raceDoc('R1', 3));
    const head = await h.log.head('R1');
    await c.next((m) => 'seq' in m && m.seq === head.seq);
    expect(c.received.filter((m) => m.type === 'snapshot')).toHaveLength(1);
    const copy = follow(c.received, 'R1');
    expect(copy.seqs).toEqual(Array.from({ length: head.seq }, (_, i) => i + 1));
    expect(copy.doc).toEqual(head.document);
  });

  it('buffers live entries published while history is read and delivers each once, in order', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    for (let n = 1; n <= 3; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const epoch = (await h.log.head('R1')).epoch;
    // Hold the history read until more entries are appended and published.
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
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 2, epoch } } });
    await started;
    for (let n = 4; n <= 6; n++) await h.publishDoc('R1', raceDoc('R1', n));
    h.log.read = realRead;
    release();
    await c.next((m) => 'seq' in m && m.seq === 7);
    const seqs = c.received.filter((m) => m.type === 'patch').map((m) => (m as { seq: number }).seq);
    expect(seqs).toEqual([3, 4, 5, 6, 7]);
  });

  it('tells a client whose position is older than the window that it was not resumed and sends a snapshot', async () => {
    h = await startHarness({ logOptions: { window: 3 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const epoch = (await h.log.head('R1')).epoch;
    for (let n = 1; n <= 10; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 2, epoch } } });
    const snap = await c.nextOfType('snapshot');
    expect(snap).toMatchObject({
      stream: 'R1',
      seq: 11,
      resumed: false,
      reason: 'too_old',
      document: raceDoc('R1', 10),
    });
  });

  it('tells a client holding a position from another epoch that it was not resumed', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 1, epoch: 'another-epoch' } } });
    expect(await c.nextOfType('snapshot')).toMatchObject({
      resumed: false,
      reason: 'epoch_mismatch',
      seq: 1,
    });
  });

  it('sends public subscribers no restricted field in snapshots, patches or added runners, and partners all', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const pub = client(h.url);
    const par = partner();
    for (const c of [pub, par]) c.send({ op: 'subscribe', channel: 'race:R1' });
    const pubSnap = await pub.nextOfType('snapshot');
    const parSnap = await par.nextOfType('snapshot');
    expect(parSnap.document).toEqual(raceDoc('R1', 0));
    const next = raceDoc('R1', 1, { class: 'BM72', track_surface: 'Dirt' }) as ReturnType<typeof raceDoc> & {
      runners: Record<string, unknown>;
    };
    next.runners.E1 = { ...next.runners.E1, form_comment: 'changed' };
    next.runners.E3 = { entrant_id: 'E3', name: 'Charlie', win_p: 0.3, spr: 88 };
    await h.publishDoc('R1', next);
    const pubPatch = await pub.nextOfType('patch');
    const parPatch = await par.nextOfType('patch');
    const restricted = /form_comment|last_starts|class|track_surface|win_p|spr/;
    expect(JSON.stringify(pubSnap)).not.toMatch(restricted);
    expect(JSON.stringify(pubPatch)).not.toMatch(restricted);
    expect(JSON.stringify(parPatch)).toMatch(/form_comment/);
    expect(JSON.stringify(parPatch)).toMatch(/win_p/);
    expect(pubPatch.seq).toBe(parPatch.seq);
    const pubDoc = fjp.applyPatch(structuredClone(pubSnap.document), pubPatch.ops, true, false).newDocument;
    expect(pubDoc).toEqual({
      race: { event_id: 'R1', meeting_id: 'M1', country: 'AUS', type: 'T', status: 'Open' },
      runners: {
        E1: { entrant_id: 'E1', name: 'Alpha', barrier: 1, odds: { win: 2.1 } },
        E2: { entrant_id: 'E2', name: 'Bravo', barrier: 2, odds: { win: 5.1 } },
        E3: { entrant_id: 'E3', name: 'Charlie' },
      },
    });
  });

  it('still sends a patch emptied by redaction, so public seqs stay contiguous', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const pub = client(h.url);
    pub.send({ op: 'subscribe', channel: 'race:R1' });
    await pub.nextOfType('snapshot');
    await h.publishDoc('R1', raceDoc('R1', 0, { class: 'Group 1' }));
    expect(await pub.nextOfType('patch')).toMatchObject({ seq: 2, base: 1, ops: [] });
  });

  it('answers malformed, oversized, unknown and invalid messages with their error codes and stays usable', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    await c.nextOfType('welcome');
    c.send('{not json');
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_json' });
    c.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(20_000) }));
    expect(await c.nextOfType('error')).toMatchObject({ code: 'message_too_large' });
    c.send({ op: 'dance', reqId: 'r1' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'unknown_op', reqId: 'r1' });
    c.send({ op: 'subscribe', channel: 'race:R1', from: { R1: { seq: -1, epoch: 'e' } }, reqId: 'r2' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_request', reqId: 'r2' });
    c.send({ op: 'subscribe', channel: 'planet:mars' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'unknown_channel' });
    c.send({ op: 'unsubscribe', channel: 'race:R9' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'not_subscribed' });
    c.send('[1,2]');
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_request' });
    c.send({ op: 'ping', reqId: 'p' });
    expect(await c.nextOfType('pong')).toMatchObject({ reqId: 'p' });
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.nextOfType<'snapshot'>('snapshot')).toMatchObject({ seq: 1 });
  });

  it('closes with 1009 a frame above the hard payload limit', async () => {
    h = await startHarness();
    const c = partner();
    await c.nextOfType('welcome');
    c.send('x'.repeat(70_000));
    expect(await c.closed).toBe(1009);
  });

  it('refuses an unknown key, and a missing key when anonymous access is off, with close 4501', async () => {
    h = await startHarness({ allowAnonymous: false });
    const bad = client(`${h.url}?token=nope`);
    expect(await bad.closed).toBe(4501);
    const none = client(h.url);
    expect(await none.closed).toBe(4501);
    const ok = client(h.url, { headers: { authorization: `Bearer ${PARTNER_KEY}` } });
    expect((await ok.nextOfType('welcome')).scope).toBe('partner');
    const viaProtocol = client(h.url, { protocols: ['racewire.v1', `token.${PARTNER_KEY}`] });
    expect((await viaProtocol.nextOfType('welcome')).scope).toBe('partner');
    expect(viaProtocol.ws.protocol).toBe('racewire.v1');
    expect(h.gateway.stats().rejectedAuth).toBe(2);
  });

  it('rate-limits messages per key with an error and closes connections beyond the per-key limit', async () => {
    h = await startHarness({ limits: { messagesPerSecond: 1, messageBurst: 2, maxConnectionsPerKey: 1 } });
    const c = partner();
    await c.nextOfType('welcome');
    for (let i = 0; i < 3; i++) c.send({ op: 'ping', reqId: String(i) });
    await c.nextOfType('pong');
    await c.nextOfType('pong');
    expect(await c.nextOfType('error')).toMatchObject({ code: 'rate_limited' });
    const second = partner();
    expect(await second.closed).toBe(4029);
  });

  it('disconnects a subscriber that stops reading with 4008 while another keeps receiving on time', async () => {
    h = await startHarness({ limits: { maxBufferedBytes: 64 * 1024, slowCloseGraceMs: 60_000 } });
    addRace(h, 'R1');
    const big = (n: number) => ({ ...raceDoc('R1', n), blob: `${n}:${'y'.repeat(40_000)}` });
    await h.publishDoc('R1', big(0));
    const slow = partner();
    const fast = partner();
    for (const c of [slow, fast]) c.send({ op: 'subscribe', channel: 'race:R1' });
    await slow.nextOfType('snapshot');
    await fast.nextOfType('snapshot');
    (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    let n = 1;
    const started = Date.now();
    while (h.gateway.stats().slowDisconnects === 0 && n < 2000) {
      await h.publishDoc('R1', big(n++));
      await new Promise((r) => setImmediate(r)); // one publish per event-loop turn, as the pipeline runs
    }
    expect(h.gateway.stats().slowDisconnects).toBe(1);
    const lastSeq = (await h.log.head('R1')).seq;
    await fast.next((m) => 'seq' in m && m.seq === lastSeq);
    expect(Date.now() - started).toBeLessThan(5000);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed).toBe(4008);
    expect(fast.ws.readyState).toBe(fast.ws.OPEN);
  });

  it('terminates a quiet connection that stops reading at its missed pong: the client sees 1006, not 4008', async () => {
    h = await startHarness({ limits: { pingIntervalMs: 1000, heartbeatMs: 600_000 } });
    const dead = partner();
    const alive = partner();
    await dead.nextOfType('welcome');
    await alive.nextOfType('welcome');
    (dead.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await h.clock.advance(1000);
    await new Promise((r) => setTimeout(r, 50)); // let the live client's pong cross loopback
    await h.clock.advance(1000);
    expect(h.gateway.stats().deadTerminations).toBe(1);
    expect(h.gateway.stats().connections).toBe(1);
    expect(h.gateway.stats().slowDisconnects).toBe(0); // it owed nothing: not a slow consumer
    (dead.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await dead.closed).toBe(1006); // terminated without a close frame
  });

  it('sends an application heartbeat with the head, epoch and staleness of each subscribed race', async () => {
    h = await startHarness({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    addRace(h, 'R2');
    await h.publishDoc('R1', raceDoc('R1', 0));
    h.catalog.stale.set('R1', 1234);
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    c.send({ op: 'subscribe', channel: 'race:R2' });
    await c.seen((m) => m.type === 'snapshot' && m.stream === 'R2');
    await c.seen((m) => m.type === 'snapshot' && m.stream === 'R1');
    await h.clock.advance(5000);
    const hb = await c.nextOfType('heartbeat');
    const epoch = (await h.log.head('R1')).epoch;
    expect(hb).toEqual({
      type: 'heartbeat',
      time: h.clock.now(),
      streams: { R1: { seq: 1, epoch, staleMs: 1234 }, R2: { seq: 0, epoch, staleMs: null } },
    });
  });

  it('covers every race of a meeting and its meeting stream, including a race added later', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'meeting:M1' });
    expect(await c.nextOfType('subscribed')).toMatchObject({ streams: ['meeting:M1', 'R1'] });
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
    const snap = await c.seen<SnapshotMessage>((m) => m.type === 'snapshot' && m.stream === 'R2');
    expect(snap.seq).toBeGreaterThanOrEqual(1);
    await c.seen((m) => m.type === 'event' && m.stream === 'meeting:M1');
    await c.seen((m) => 'seq' in m && m.stream === 'R2' && m.seq === 2);
    expect(follow(c.received, 'R2').doc).toEqual(raceDoc('R2', 1));
    c.send({ op: 'unsubscribe', channel: 'meeting:M1' });
    await c.nextOfType('unsubscribed');
    expect(h.hub.subscriberCounts().size).toBe(0);
  });

  it('delivers only matching events on a filtered firehose', async () => {
    h = await startHarness();
    addRace(h, 'R1', 'M1', 'AUS', 'T');
    addRace(h, 'R2', 'M2', 'NZ', 'G');
    const c = partner();
    c.send({
      op: 'subscribe',
      channel: 'firehose',
      filter: { countries: ['NZ'], types: ['runner.scratched'] },
    });
    await c.nextOfType('subscribed');
    await h.publishDoc('R2', raceDoc('R2', 0), [{ type: 'odds.changed', data: {} }]);
    await h.publishEvent('R1', 'runner.scratched', { entrantId: 'E1' });
    await h.publishEvent('R2', 'runner.scratched', { entrantId: 'E2' });
    const ev = await c.nextOfType('event');
    expect(ev).toMatchObject({
      stream: 'R2',
      seq: 3,
      event: { type: 'runner.scratched', data: { entrantId: 'E2' } },
    });
    c.send({ op: 'ping' });
    await c.nextOfType('pong');
    expect(
      c.received.filter((m) => m.type === 'event' || m.type === 'patch' || m.type === 'snapshot'),
    ).toHaveLength(1);
  });

  it('answers an internal error when the log fails, and keeps serving the connection', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const realHead = h.log.head.bind(h.log);
    h.log.head = async () => {
      throw new Error('disk on fire');
    };
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'internal' });
    await h.publishDoc('R1', raceDoc('R1', 1)); // not buffered for a failed attach
    h.log.head = realHead;
    c.send({ op: 'resync', stream: 'R1' });
    expect(await c.nextOfType('snapshot')).toMatchObject({ stream: 'R1', seq: 2, reason: 'resync' });
  });

  it('stops delivering a race after unsubscribe', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner();
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.nextOfType('snapshot');
    c.send({ op: 'unsubscribe', channel: 'race:R1' });
    await c.nextOfType('unsubscribed');
    await h.publishDoc('R1', raceDoc('R1', 1));
    c.send({ op: 'ping' });
    await c.nextOfType('pong');
    expect(c.received.filter((m) => m.type === 'patch')).toEqual([]);
  });

  it('closes every socket with 1001 on close', async () => {
    h = await startHarness();
    const c = partner();
    await c.nextOfType('welcome');
    await h.gateway.close();
    expect(await c.closed).toBe(1001);
  });
});
