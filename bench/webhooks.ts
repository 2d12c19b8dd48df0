/**
 * Webhook delivery benchmark (loopback only, bounded): signed deliveries/s to a local receiver with 10 and
 * 100 endpoints, event->receipt latency p50/p99 at a steady append rate, and the same with one extra endpoint
 * that never answers (its attempts time out) to show the others' latency does not move.
 *
 *   npx tsx bench/webhooks.ts
 *
 * Everything runs in one process (event log on a SQLite file in WAL mode, dispatcher, receiver), so the
 * numbers include the receiver's own cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createMemoryBus } from '../src/bus/bus.js';
import { systemClock } from '../src/clock.js';
import { createSqliteOutbox, registerWebhooks } from '../src/delivery/webhooks/index.js';
import { openDatabase } from '../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../src/store/sqlite/sqlite-event-log.js';

interface Scenario {
  name: string;
  endpoints: number;
  downEndpoints: number;
  /** Burst: events appended at once, to measure throughput. */
  burstEvents: number;
  /** Paced: events appended at `rate` per second, to measure latency. */
  pacedEvents: number;
  rate: number;
}

const logger = pino({ level: 'silent' });
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function run(s: Scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-bench-webhooks-'));
  const appendedAt = new Map<string, number>();
  let received = 0;
  let latencies: number[] = [];
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/down')) return; // never answers: the attempt times out
    const id = String(req.headers['webhook-id']);
    req.resume();
    req.on('end', () => {
      const at = appendedAt.get(id);
      if (at !== undefined) latencies.push(performance.now() - at);
      received++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const db = openDatabase(join(dir, 'bench.db'));
  const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance;
  const log = createSqliteEventLog({ db });
  // As in production, each append is published on the bus, which wakes the feed reader.
  const bus = createMemoryBus();
  const service = await registerWebhooks(app, {
    store: { outbox: createSqliteOutbox(db), feed: log.feed },
    bus,
    clock: systemClock,
    logger,
    config: { allowedHosts: ['127.0.0.1'], timeoutMs: 1_000 },
  });
  await app.ready();
  for (let i = 0; i < s.endpoints + s.downEndpoints; i++) {
    const path = i < s.endpoints ? `/ok/${i}` : `/down/${i}`;
    await app.inject({ method: 'POST', url: '/v1/webhooks/endpoints', payload: { url: `${base}${path}` } });
  }
  let n = 0;
  const append = async () => {
    const raceId = `race-${n % 20}`;
    n++;
    const t = performance.now();
    const appended = await log.append(raceId, {
      entries: [
        {
          kind: 'event',
          event: {
            type: 'runner.scratched',
            meetingId: 'm1',
            raceId,
            data: { runner: { runnerNumber: n, name: `Runner ${n}` } },
          },
        },
      ],
      now: new Date(),
    });
    const [stored] = appended;
    if (stored?.kind === 'event') appendedAt.set(stored.event.id, t);
    bus.publish(appended);
  };
  const waitFor = async (count: number, limitMs: number) => {
    const deadline = performance.now() + limitMs;
    while (received < count && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  };

  // Throughput: a burst, timed until every healthy endpoint has every event.
  const t0 = performance.now();
  for (let i = 0; i < s.burstEvents; i++) await append();
  await waitFor(s.burstEvents * s.endpoints, 60_000);
  const burstMs = performance.now() - t0;
  const burstDelivered = received;

  // Latency at a steady rate.
  latencies = [];
  received = 0;
  for (let i = 0; i < s.pacedEvents; i++) {
    await append();
    await new Promise((r) => setTimeout(r, 1000 / s.rate));
  }
  await waitFor(s.pacedEvents * s.endpoints, 30_000);
  const sorted = latencies.sort((a, b) => a - b);
  const result = {
    scenario: s.name,
    deliveriesPerSecond: Math.round((burstDelivered / burstMs) * 1000),
    burst: `${burstDelivered} deliveries in ${Math.round(burstMs)} ms`,
    latencyP50Ms: Number(pct(sorted, 50).toFixed(1)),
    latencyP99Ms: Number(pct(sorted, 99).toFixed(1)),
    pacedDeliveries: sorted.length,
  };
  await service.close();
  await app.close();
  server.closeAllConnections();
  server.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const only = process.env.BENCH_ONLY;
const scenarios: Scenario[] = [
  { name: '10 endpoints', endpoints: 10, downEndpoints: 0, burstEvents: 500, pacedEvents: 200, rate: 100 },
  { name: '100 endpoints', endpoints: 100, downEndpoints: 0, burstEvents: 100, pacedEvents: 100, rate: 10 },
  {
    name: '10 endpoints + 1 down (timing out)',
    endpoints: 10,
    downEndpoints: 1,
    burstEvents: 500,
    pacedEvents: 200,
    rate: 100,
  },
];
for (const s of scenarios) if (!only || s.name === only) console.log(JSON.stringify(await run(s)));
