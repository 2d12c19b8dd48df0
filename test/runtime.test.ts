/**
 * The whole composition, in-process: embedded simulator -> poller -> pipeline -> event log -> WebSocket.
 * A scratching made in the simulator reaches a subscriber as a typed event, and the subscriber's copy,
 * built from the snapshot and every patch, ends equal to the server's document.
 */

import type { ServerMessage } from '@racewire/client/protocol';
import jsonpatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { demoDay, type Racewire, startRacewire, upstreamLabels } from '../src/runtime.js';

let racewire: Racewire;

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    STORE: 'memory',
    LOG_LEVEL: 'silent',
    SIMULATOR_SPEED: '5',
    DISCOVERY_INTERVAL_MS: '3000',
  });
  racewire = await startRacewire({ config });
});
afterAll(async () => {
  await racewire?.stop();
});

describe('racewire in one process', () => {
  it('labels upstream metrics by operation and status class, never by id', () => {
    expect(upstreamLabels('/meetings', 200)).toEqual({ operation: 'meetings', outcome: '2xx' });
    expect(upstreamLabels('/meetings/abc', 404)).toEqual({ operation: 'meeting', outcome: '4xx' });
    expect(upstreamLabels('/events/abc', 429)).toEqual({ operation: 'event', outcome: '429' });
    expect(upstreamLabels('/races/abc', 503)).toEqual({ operation: 'race', outcome: '5xx' });
  });

  it('lays the demo timetable so that racing is live at any hour', () => {
    expect(demoDay(Date.parse('2026-11-22T21:00:00Z'))).toBe('2026-11-23');
    expect(demoDay(Date.parse('2026-11-22T09:00:00Z'))).toBe('2026-11-22');
  });

  it('delivers a scratching made upstream to a race subscriber, with the copy kept exact', async () => {
    const sim = racewire.simulator!;
    const now = racewire.clock.now();
    // An open race 20-60 minutes from its jump: nothing else about it changes much during the test.
    const race = sim.world
      .view()
      .meetings.flatMap((m) => m.races)
      .find(
        (r) =>
          r.status === 'Open' &&
          Date.parse(r.startTime) - now > 20 * 60_000 &&
          Date.parse(r.startTime) - now < 60 * 60_000,
      );
    expect(race, 'an open race within the hour').toBeDefined();
    const runner = race!.runners.find((r) => !r.scratched)!;

    const ws = new WebSocket(`${racewire.url.replace('http', 'ws')}/ws`);
    const messages: ServerMessage[] = [];
    ws.on('message', (raw) => messages.push(JSON.parse(String(raw)) as ServerMessage));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ op: 'subscribe', channel: `race:${race!.id}` }));

    // The subscription raises the race's priority: its first document arrives quickly.
    const hasDocument = () =>
      messages.some(
        (m) => (m.type === 'snapshot' && m.stream === race!.id && m.document !== null) || m.type === 'patch',
      );
    await vi.waitFor(() => expect(hasDocument()).toBe(true), { timeout: 15_000, interval: 50 });

    sim.world.scratch(race!.id, runner.entrantId);
    await vi.waitFor(
      () => {
        const scratched = messages.find((m) => m.type === 'event' && m.event.type === 'runner.scratched');
        expect(scratched).toBeDefined();
      },
      { timeout: 15_000, interval: 50 },
    );

    // The server's document at some version; the subscriber must have received at least that far.
    const res = await racewire.app.inject({ method: 'GET', url: `/v1/races/${race!.id}` });
    const server = res.json() as {
      seq: number;
      documentSeq: number;
      document: { runners: Record<string, { is_scratched: boolean }> };
    };
    expect(server.document.runners[runner.entrantId]!.is_scratched).toBe(true);
    const ofRace = () => messages.filter((m) => 'stream' in m && m.stream === race!.id && 'seq' in m);
    await vi.waitFor(
      () =>
        expect(Math.max(...ofRace().map((m) => (m as { seq: number }).seq))).toBeGreaterThanOrEqual(
          server.seq,
        ),
      {
        timeout: 10_000,
        interval: 50,
      },
    );

    // Rebuild the document up to the server's version, as a ticker would: no gap, and exactly equal.
    let copy: unknown;
    let lastSeq = 0;
    for (const m of ofRace()) {
      if (m.type === 'snapshot') {
        if (m.document !== null && m.documentSeq <= server.documentSeq) copy = structuredClone(m.document);
        lastSeq = m.seq;
      } else if (m.type === 'patch' || m.type === 'event') {
        expect(m.seq).toBe(lastSeq + 1);
        lastSeq = m.seq;
        if (m.type === 'patch' && m.seq <= server.documentSeq) {
          copy = jsonpatch.applyPatch(copy, m.ops, true, false).newDocument;
        }
      }
    }
    expect(copy).toEqual(server.document);
    ws.close();
  });

  it('answers health, readiness, metrics and the OpenAPI document', async () => {
    await vi.waitFor(
      async () => expect((await racewire.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200),
      { timeout: 10_000, interval: 100 },
    );
    expect((await racewire.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true });
    const metrics = await racewire.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('racewire_upstream_budget{state="used"}');
    expect(metrics.body).toMatch(/racewire_upstream_requests_total\{operation="event",outcome="2xx"\} [1-9]/);
    expect(metrics.body).toMatch(/racewire_patch_bytes_count\{kind="snapshot"\} [1-9]/);
    const openapi = (await racewire.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      '/healthz',
      '/readyz',
      '/v1/meetings',
      '/v1/races/{raceId}',
      '/v1/ops',
      '/v1/webhooks/endpoints',
      '/v1/sse',
    ]) {
      expect(Object.keys(openapi.paths)).toContain(path);
    }
  });
});
