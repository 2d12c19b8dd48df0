/**
 * SSE under the same limits as WebSocket (issue 13): connections per key (anonymous: per address) counted
 * over both transports, channels per key, the message rate, and real-sized meetings paced to a fast reader.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { realDoc } from '../support/real-doc.js';
import { TestClient } from '../ws/harness.js';
import { PARTNER_KEY, SseClient, type SseHarness, startSse } from './harness.js';

let h: SseHarness;
const clients: SseClient[] = [];
const sockets: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.ws.terminate();
  await h?.close();
});

function connect(query: string, headers: Record<string, string> = {}) {
  const c = new SseClient(`${h.base}/v1/sse?${query}`, { headers, transport: 'http' });
  clients.push(c);
  return c;
}

describe('SSE limits', () => {
  it('counts SSE and WebSocket connections of one address together and refuses the one past the limit with 429', async () => {
    h = await startSse({ webSocket: true, limits: { maxConnectionsPerKey: 5, messageBurst: 1000 } });
    const open: SseClient[] = [];
    for (let i = 0; i < 3; i++) {
      const c = connect('channel=race:R1');
      await c.nextData();
      open.push(c);
    }
    const wsUrl = `${h.base.replace('http', 'ws')}/ws`;
    for (let i = 0; i < 2; i++) {
      const s = new TestClient(wsUrl);
      sockets.push(s);
      await s.nextOfType('welcome');
    }
    const refused = await fetch(`${h.base}/v1/sse?channel=race:R1`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { code: 'too_many_connections', message: expect.any(String) },
    });
    const ws = new TestClient(wsUrl);
    sockets.push(ws);
    expect(await ws.closed).toBe(4029);
    expect(h.hub.stats().sse).toMatchObject({ connections: 3, rejected: 1 });
    expect(h.hub.stats().ws).toMatchObject({ connections: 2, rejected: 1 });
    open[0]!.close();
    await new Promise<void>((resolve) => {
      const check = () => (h.hub.stats().sse.connections === 2 ? resolve() : setImmediate(check));
      check();
    });
    const again = connect('channel=race:R1');
    expect((await again.nextData()).event).toBe('snapshot');
  });

  it('charges one message per channel against the key rate and refuses with 429 rate_limited', async () => {
    h = await startSse({ limits: { messagesPerSecond: 1, messageBurst: 4 } });
    const first = connect('channel=race:R1&channel=race:R2&channel=race:R3');
    await first.nextData();
    const refused = await fetch(`${h.base}/v1/sse?channel=race:R4&channel=race:R5`);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('rate_limited');
    await h.clock.advance(1000);
    const later = connect('channel=race:R4');
    expect((await later.nextData()).event).toBe('snapshot');
  });

  it('admits one request for the documented 200 channels from a full bucket, leaving the key in debt', async () => {
    h = await startSse(); // the defaults: 20 messages a second, burst 40, 200 channels a connection
    const channels = Array.from({ length: 200 }, (_, i) => `channel=race:R${i + 1}`).join('&');
    const wide = connect(channels);
    await wide.nextData();
    expect(h.hub.stats().sse).toMatchObject({ connections: 1, subscriptions: 200 });
    // The 200 channels cost 200 messages: 160 beyond the burst, repaid at 20 a second (8 s of wall time).
    const refused = await fetch(`${h.base}/v1/sse?channel=race:R1`);
    expect([refused.status, (await refused.json()).error.code]).toEqual([429, 'rate_limited']);
    await h.clock.advance(8_000);
    expect((await fetch(`${h.base}/v1/sse?channel=race:R1`)).status).toBe(429);
    await h.clock.advance(50);
    expect((await connect('channel=race:R1').nextData()).event).toBe('snapshot');
  });

  it('refuses channels past the per-key total with 429 too_many_subscriptions', async () => {
    h = await startSse({ limits: { maxSubscriptionsPerKey: 3, messageBurst: 100 } });
    const a = connect('channel=race:R1&channel=race:R2', { authorization: `Bearer ${PARTNER_KEY}` });
    await a.nextData();
    const refused = await fetch(`${h.base}/v1/sse?channel=race:R3&channel=race:R4`, {
      headers: { authorization: `Bearer ${PARTNER_KEY}` },
    });
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('too_many_subscriptions');
    expect(h.hub.stats().sse.connections).toBe(1);
  });

  it('streams every snapshot of a 12-race meeting of real documents to a reader that keeps up', async () => {
    h = await startSse();
    const races = Array.from({ length: 12 }, (_, i) => `R${i + 1}`);
    for (const r of races) {
      h.addRace(r);
      await h.publishDoc(r, realDoc(r));
    }
    const c = connect('channel=meeting:M1', { authorization: `Bearer ${PARTNER_KEY}` });
    const got = new Set<string>();
    while (got.size < 13) {
      const m = await c.nextData<{ type: string; stream: string }>();
      if (m.data.type === 'snapshot') got.add(m.data.stream);
    }
    expect(c.ended).toBe(false);
    expect(h.hub.stats().sse.slowDisconnects).toBe(0);
  });

  it('ends a response that stops draining with a close event naming the slow consumer', async () => {
    h = await startSse({ limits: { maxBufferedBytes: 128 * 1024, slowConsumerMs: 5000 } });
    await h.publishDoc('R1', realDoc('R1'));
    const c = connect('channel=race:R1', { authorization: `Bearer ${PARTNER_KEY}` });
    await c.nextData();
    c.pause();
    let n = 1;
    while (h.hub.stats().memory.queuedBytes < 1024 * 1024) {
      await h.publishDoc('R1', { ...realDoc('R1', n), pad: 'x'.repeat(60_000 + n) });
      n++;
      await new Promise((r) => setImmediate(r));
    }
    await h.clock.advance(5000);
    expect(h.hub.stats().sse.slowDisconnects).toBe(1);
    c.resume();
    const close = await c.next((m) => m.event === 'close', 15_000);
    expect(JSON.parse(close.data!)).toMatchObject({ type: 'close', code: 4008, reason: 'slow_consumer' });
  });
});
