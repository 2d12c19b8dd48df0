/**
 * Webhook delivery benchmark (loopback only, bounded): racewire's dispatcher (durable outbox on SQLite in WAL
 * mode, per-endpoint caps, retries) against a naive dispatcher without an outbox (each event signed and
 * POSTed to every endpoint from memory through one queue of the same concurrency, nothing retried), with 10
 * endpoints and with 10 plus one that never answers. Both read the same events (appended to a SQLite event
 * log and published on the bus, as the pipeline does); the receivers run in a child process, so the CPU
 * measured is the appends plus the dispatcher. Runs interleave; ratios are taken within a run.
 *
 *   node --import tsx bench/webhooks.ts [--events 500] [--runs 3] [--timeout-ms 1000]
 *
 * Per case: deliveries/s (first append to the last healthy delivery) and CPU per delivery.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import PQueue from 'p-queue';
import { pino } from 'pino';
import { type Bus, createMemoryBus } from '../src/bus/bus.js';
import { systemClock } from '../src/clock.js';
import { generateSecret, signDelivery } from '../src/delivery/webhooks/dispatch/signer.js';
import { createSqliteOutbox, registerWebhooks } from '../src/delivery/webhooks/index.js';
import type { LogEntry } from '../src/events/envelope.js';
import { openDatabase } from '../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../src/store/sqlite/sqlite-event-log.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    'timeout-ms': { type: 'string', default: '1000' },
  },
});
const events = Number(values.events);
const runs = Number(values.runs);
const timeoutMs = Number(values['timeout-ms']);
const CONCURRENCY = 32; // racewire's default

type Impl = 'racewire' | 'naive';
interface Case {
  endpoints: number;
  down: number;
}
const CASES: Case[] = [
  { endpoints: 10, down: 0 },
  { endpoints: 10, down: 1 },
];
const logger = pino({ level: 'silent' });

const receiver: ChildProcess & { port?: number } = fork(
  new URL('./support/webhook-receiver.ts', import.meta.url).pathname,
  [],
  { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
receiver.port = await new Promise<number>((r) =>
  receiver.once('message', (m: { port: number }) => r(m.port)),
);
const base = `http://127.0.0.1:${receiver.port}`;
const count = () =>
  new Promise<number>((resolve) => {
    receiver.once('message', (m: { count: number }) => resolve(m.count));
    receiver.send({ cmd: 'count' });
  });

/** The naive dispatcher: every event to every endpoint at once, from memory. */
function naiveDispatcher(bus: Bus, urls: string[]) {
  const agent = new http.Agent({ keepAlive: true });
  const endpoints = urls.map((url) => ({ url: new URL(url), secret: generateSecret() }));
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const post = (url: URL, headers: Record<string, string>, body: string) =>
    new Promise<void>((resolve) => {
      const req = http.request(url, { method: 'POST', agent, headers, timeout: timeoutMs }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
      req.end(body);
    });
  const unsubscribe = bus.subscribe((entries: readonly LogEntry[]) => {
    for (const e of entries) {
      if (e.kind !== 'event') continue;
      const body = JSON.stringify({ type: e.event.type, timestamp: e.event.timestamp, data: e.event });
      for (const ep of endpoints) {
        const headers = {
          'content-type': 'application/json',
          ...signDelivery([ep.secret], e.event.id, Date.now(), body),
        };
        void queue.add(() => post(ep.url, headers, body));
      }
    }
  });
  return {
    async close() {
      unsubscribe();
      queue.clear();
      agent.destroy();
    },
  };
}

async function racewireDispatcher(
  app: FastifyInstance,
  db: ReturnType<typeof openDatabase>,
  bus: Bus,
  urls: string[],
  feed: Parameters<typeof registerWebhooks>[1]['store']['feed'],
) {
  const service = await registerWebhooks(app, {
    store: { outbox: createSqliteOutbox(db), feed },
    bus,
    clock: systemClock,
    logger,
    config: { allowedHosts: ['127.0.0.1'], timeoutMs, concurrency: CONCURRENCY },
  });
  await app.ready();
  for (const url of urls)
    await app.inject({ method: 'POST', url: '/v1/webhooks/endpoints', payload: { url } });
  return service;
}

async function measure(impl: Impl, c: Case) {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-bench-webhooks-'));
  const db = openDatabase(join(dir, 'bench.db'));
  const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance;
  const log = createSqliteEventLog({ db });
  const bus = createMemoryBus();
  const urls = Array.from({ length: c.endpoints + c.down }, (_, i) =>
    i < c.endpoints ? `${base}/ok/${i}` : `${base}/down/${i}`,
  );
  const dispatcher =
    impl === 'racewire' ? await racewireDispatcher(app, db, bus, urls, log.feed) : naiveDispatcher(bus, urls);
  await count();
  const expected = events * c.endpoints;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let n = 0; n < events; n++) {
    const raceId = `race-${n % 20}`;
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
    bus.publish(appended);
  }
  let received = 0;
  const deadline = performance.now() + 120_000;
  while (received < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    received += await count();
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await dispatcher.close();
  await app.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    received,
    expected,
    perSecond: Math.round((received / ms) * 1000),
    cpuUsPerDelivery: Math.round((cpu.user + cpu.system) / Math.max(1, received)),
  };
}

// Warm-up (JIT, SQLite's first pages), not counted.
for (const impl of ['racewire', 'naive'] as const) await measure(impl, { endpoints: 2, down: 0 });

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * xs.length)] ?? Number.NaN;
const table: Record<string, { perSecond: number[]; cpu: number[]; ratioRate: number[]; ratioCpu: number[] }> =
  {};
for (let run = 0; run < runs; run++) {
  const load = loadavg()[0]!.toFixed(1);
  for (const c of CASES) {
    const key = `${c.endpoints} endpoints${c.down ? ` + ${c.down} down` : ''}`;
    const order: Impl[] = run % 2 === 0 ? ['racewire', 'naive'] : ['naive', 'racewire'];
    const r: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    for (const impl of order) r[impl] = await measure(impl, c);
    console.error(`run ${run + 1} ${key} (load ${load}): ${JSON.stringify(r)}`);
    for (const impl of ['racewire', 'naive'] as const) {
      const name = `${impl}: ${key}`;
      table[name] ??= { perSecond: [], cpu: [], ratioRate: [], ratioCpu: [] };
      const t = table[name];
      t.perSecond.push(r[impl]!.perSecond);
      t.cpu.push(r[impl]!.cpuUsPerDelivery);
      t.ratioRate.push(+(r[impl]!.perSecond / r.naive!.perSecond).toFixed(2));
      t.ratioCpu.push(+(r[impl]!.cpuUsPerDelivery / r.naive!.cpuUsPerDelivery).toFixed(2));
    }
  }
}
for (const [k, t] of Object.entries(table)) {
  const m = (xs: number[]) => `${q(xs, 0.5)} [${Math.min(...xs)}-${Math.max(...xs)}]`;
  console.log(
    `${k}: deliveries/s ${m(t.perSecond)}, CPU µs/delivery ${m(t.cpu)}, rate vs naive ${m(t.ratioRate)}, CPU vs naive ${m(t.ratioCpu)}`,
  );
}
receiver.send({ cmd: 'exit' });
process.exit(0);
