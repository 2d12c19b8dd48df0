/**
 * The WebSocket gateway over real sockets: what only the wire shows (the welcome, frames the ws layer refuses,
 * authentication and its close codes, WebSocket pings, closing). What the subscription core does with a
 * connection (attach, resume, limits, heartbeats, variants) is tested without sockets in test/delivery/core/.
 */
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
    const welcome = await c.nextOfType('welcome');
    expect([welcome.scope, welcome.protocol]).toEqual(['partner', 3]);
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

  it('terminates a quiet connection that stops reading at its missed pong: the client sees 1006, not 4008', async () => {
    h = await startHarness({ limits: { pingIntervalMs: 1000, heartbeatMs: 600_000 } });
    const dead = partner();
    const alive = partner();
    await dead.nextOfType('welcome');
    await alive.nextOfType('welcome');
    (dead.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // The server's side of each socket: the live client's pong must reach it before the next ping's check
    // (the dead one cannot answer: it reads nothing).
    const ponged = new Promise<void>((resolve) => {
      for (const ws of h.app.websocketServer.clients) ws.once('pong', () => resolve());
    });
    await h.clock.advance(1000);
    await ponged;
    await h.clock.advance(1000);
    expect(h.gateway.stats().deadTerminations).toBe(1);
    expect(h.gateway.stats().connections).toBe(1);
    expect(h.gateway.stats().slowDisconnects).toBe(0); // it owed nothing: not a slow consumer
    (dead.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await dead.closed).toBe(1006); // terminated without a close frame
  });

  it('closes every socket with 1001 on close', async () => {
    h = await startHarness();
    const c = partner();
    await c.nextOfType('welcome');
    await h.gateway.close();
    expect(await c.closed).toBe(1001);
  });
});
