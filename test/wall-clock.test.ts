/**
 * Two clocks (issue 13): with the embedded upstream (a replay) at x1000, race time runs a thousand times faster, but
 * everything a client sees (the message rate, heartbeats, pings and their timeout, webhook timestamps) runs on
 * the wall clock, here a manual one that does not move unless told (upstream timeouts and back-offs too). SSE
 * appears in /v1/ops and /metrics.
 */

import type { ServerMessage } from '@racewire/client/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createManualClock, type ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { type Racewire, startRacewire } from '../src/runtime.js';
import { RECORDING } from './fixtures/recordings/build-awapuni.js';

let racewire: Racewire;
let wall: ManualClock;
const start = Date.parse('2026-11-22T10:00:00Z');

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    STORE: 'memory',
    LOG_LEVEL: 'silent',
    SIMULATOR_SPEED: '1000',
    // A replayed race of eleven responses, not the simulated day: at x1000 the budget is a thousand times
    // the requests a real minute, and with upstream timeouts on the wall clock each of them now succeeds and
    // costs work (a whole day of meetings a few times a second would load a busy 2-core machine).
    REPLAY_FILE: RECORDING,
    DISCOVERY_INTERVAL_MS: '3000',
  });
  wall = createManualClock(start);
  racewire = await startRacewire({ config, wallClock: wall });
});
afterAll(async () => {
  await racewire?.stop();
});

/** Resolves once race time has moved on by `ms` (a thousand times faster than real time). */
async function raceTimePasses(ms: number) {
  const until = racewire.clock.now() + ms;
  while (racewire.clock.now() < until) await new Promise((r) => setTimeout(r, 5));
}

function connect() {
  const ws = new WebSocket(`${racewire.url.replace('http', 'ws')}/ws`);
  const messages: ServerMessage[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as ServerMessage));
  const opened = new Promise<void>((resolve) => ws.once('open', () => resolve()));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  const seen = async (pred: (m: ServerMessage) => boolean) => {
    for (;;) {
      const m = messages.find(pred);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { ws, messages, opened, closed, seen };
}

describe('limits on the wall clock while race time runs at x1000', () => {
  it('holds the advertised message rate however fast race time runs', async () => {
    const c = connect();
    await c.opened;
    const welcome = await c.seen((m) => m.type === 'welcome');
    expect(welcome).toMatchObject({ limits: { messagesPerSecond: 20 } });
    for (let i = 0; i < 40; i++) c.ws.send(JSON.stringify({ op: 'ping', reqId: `a${i}` }));
    await c.seen((m) => m.type === 'pong' && m.reqId === 'a39');
    await raceTimePasses(60_000); // a minute of race time: at x1000 it would refill the bucket many times over
    c.ws.send(JSON.stringify({ op: 'ping', reqId: 'over' }));
    expect(await c.seen((m) => m.type === 'error')).toMatchObject({ code: 'rate_limited' });
    await wall.advance(1000);
    c.ws.send(JSON.stringify({ op: 'ping', reqId: 'later' }));
    const pong = await c.seen((m) => m.type === 'pong' && m.reqId === 'later');
    expect(pong).toMatchObject({ time: wall.now() });
    c.ws.close();
  });

  it('sends heartbeats and pings on the wall clock, so a client busy for a while of race time stays connected', async () => {
    const c = connect();
    await c.opened;
    await c.seen((m) => m.type === 'welcome');
    const firstBeat = start + 15_000;
    (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    await raceTimePasses(120_000); // four ping intervals and eight heartbeats of race time
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    c.ws.send(JSON.stringify({ op: 'ping', reqId: 'alive' }));
    await c.seen((m) => m.type === 'pong' && m.reqId === 'alive');
    expect(c.messages.filter((m) => m.type === 'heartbeat')).toEqual([]);
    await wall.advance(firstBeat - wall.now());
    expect(await c.seen((m) => m.type === 'heartbeat')).toMatchObject({ time: firstBeat });
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    c.ws.close();
  });

  it('stamps webhook endpoints with wall-clock time', async () => {
    const res = await fetch(`${racewire.url}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://93.184.216.34/hook' }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { endpoint: { createdAt: string } };
    expect(body.endpoint.createdAt).toBe(new Date(wall.now()).toISOString());
  });

  it('keeps a rotated secret for 24 h of wall time, however fast race time runs', async () => {
    const created = await fetch(`${racewire.url}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://93.184.216.34/rotated' }),
    });
    const { endpoint } = (await created.json()) as { endpoint: { id: string } };
    await raceTimePasses(60_000);
    const rotated = await fetch(`${racewire.url}/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, {
      method: 'POST',
    });
    expect(rotated.status).toBe(200);
    const body = (await rotated.json()) as { endpoint: { previousSecretExpiresAt: string } };
    // At x1000 on the race clock the overlap would end after 86 s of real time.
    expect(body.endpoint.previousSecretExpiresAt).toBe(new Date(wall.now() + 24 * 3_600_000).toISOString());
  });

  it('counts SSE subscribers in /v1/ops and /metrics beside WebSocket ones', async () => {
    const res = await fetch(`${racewire.url}/v1/sse?channel=race:nowhere`);
    const reader = res.body!.getReader();
    await reader.read();
    const ops = (await (await fetch(`${racewire.url}/v1/ops`)).json()) as { sse: { connections: number } };
    expect(ops.sse).toEqual({ connections: 1, subscribers: 1, slowDisconnects: 0 });
    const metrics = await (await fetch(`${racewire.url}/metrics`)).text();
    expect(metrics).toMatch(/racewire_stream_connections\{transport="sse"\} 1/);
    expect(metrics).toMatch(/racewire_delivery_memory_limit_bytes\{pool="replay_cache"\} 33554432/);
    await reader.cancel();
  });
});
