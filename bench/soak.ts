/**
 * The soak: the whole service (poller, pipelines, SQLite log, retention, the subscription hub with WebSocket
 * clients, one webhook endpoint) against the embedded simulator over N simulated race days, as fast as the
 * machine allows. Race time and wall time are two manual clocks moved together in steps once no request is
 * in flight, so the service runs as at x1 against the real budget, only faster than real time. Prints per
 * simulated day: RSS, V8 heap used after a forced GC, DATA_DIR bytes, metric series, events appended and
 * webhooks delivered; the last line `N passed, N failed` judges the run (docs/benchmarks.md, Soak).
 *
 *   npm run soak -- --days 7 [--rpm 100] [--seed 1] [--step-ms 5000]   (node --expose-gc, as the npm script runs it)
 *
 * Time moves in steps of --step-ms (both clocks), each once no request is in flight: under the 10 s upstream
 * timeout, so no request times out for a step it waited on.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createManualClock, type ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { startRacewire } from '../src/runtime.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const DAYS = Number(args.get('days') ?? 7);
const RPM = args.get('rpm') ?? '100';
const SEED = args.get('seed') ?? '1';
const STEP_MS = Number(args.get('step-ms') ?? 5_000);
const DAY_MS = 86_400_000;
const GB = 1e9;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run node with --expose-gc (npm run soak does)');

// Requests in flight (upstream and webhook sends): time moves only once they are all answered.
let inFlight = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  inFlight++;
  try {
    const res = await realFetch(input, init);
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status, headers: res.headers });
  } finally {
    inFlight--;
  }
};

// One webhook endpoint: counts each delivery once by its id.
const delivered = new Set<string>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = req.headers['webhook-id'];
    if (typeof id === 'string') delivered.add(id);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = (receiver.address() as { port: number }).port;

const dir = mkdtempSync(join(tmpdir(), 'racewire-soak-'));
const wall: ManualClock = createManualClock(Date.now());
let race: ManualClock | undefined;
const racewire = await startRacewire({
  config: loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    STORE: 'sqlite',
    LOG_LEVEL: 'silent',
    SIMULATOR_SEED: SEED,
    RACING_API_MAX_RPM: RPM,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  }),
  wallClock: wall,
  clockFrom: (origin) => {
    race = createManualClock(origin);
    return race;
  },
});
if (!race) throw new Error('the upstream did not take the manual clock');
const raceClock: ManualClock = race;
const base = racewire.url;

const registered = await fetch(`${base}/v1/webhooks/endpoints`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook` }),
});
if (registered.status !== 201) throw new Error(`webhook endpoint refused: ${await registered.text()}`);

// Subscribers: two WebSocket clients on the firehose, counting what they receive.
let wsMessages = 0;
const sockets = [0, 1].map(() => {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
  ws.on('open', () => ws.send(JSON.stringify({ op: 'subscribe', channel: 'firehose' })));
  ws.on('message', () => {
    wsMessages++;
  });
  ws.on('error', () => {});
  return ws;
});

const bytesIn = (path: string): number => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesIn(join(path, name)), 0);
};

async function scrape(): Promise<{ series: number; events: number; depth: number; failed: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const sum = (prefix: string) =>
    lines.filter((l) => l.startsWith(prefix)).reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
  return {
    series: lines.length,
    events: sum('racewire_events_total'),
    depth: sum('racewire_webhook_outbox_depth'),
    failed: sum('racewire_webhook_attempts_total{outcome="failed"'),
  };
}

async function step(ms: number): Promise<void> {
  for (let spins = 0; inFlight > 0 && spins < 10_000; spins++) await new Promise((r) => setImmediate(r));
  await raceClock.advance(ms);
  await wall.advance(ms);
}

interface Day {
  day: number;
  rssMb: number;
  heapMb: number;
  diskMb: number;
  series: number;
  events: number;
  webhooks: number;
}
const days: Day[] = [];
const mb = (n: number) => Math.round((n / 1e6) * 10) / 10;
const started = Date.now();
console.log(`soak: ${DAYS} race days, ${RPM} requests/min, seed ${SEED}, DATA_DIR ${dir}`);
console.log(
  'day | RSS MB | heap after GC MB | DATA_DIR MB | metric series | events appended | webhooks delivered | wall s',
);
for (let day = 1; day <= DAYS; day++) {
  const end = raceClock.now() + DAY_MS;
  // Every race hour on stderr: the trend within a day (heap after a forced GC, DATA_DIR).
  let hour = raceClock.now() + DAY_MS / 24;
  while (raceClock.now() < end) {
    await step(STEP_MS);
    if (raceClock.now() >= hour && raceClock.now() < end) {
      hour += DAY_MS / 24;
      gc();
      const wallS = Math.round((Date.now() - started) / 1000);
      const { rss, heapUsed } = process.memoryUsage();
      console.error(
        `  day ${day} ${new Date(raceClock.now()).toISOString()}: RSS ${mb(rss)} MB, heap after GC ${mb(heapUsed)} MB, DATA_DIR ${mb(bytesIn(dir))} MB, ${delivered.size} webhooks, wall ${wallS} s`,
      );
    }
  }
  gc();
  const metrics = await scrape();
  const row: Day = {
    day,
    rssMb: mb(process.memoryUsage().rss),
    heapMb: mb(process.memoryUsage().heapUsed),
    diskMb: mb(bytesIn(dir)),
    series: metrics.series,
    events: metrics.events,
    webhooks: delivered.size,
  };
  days.push(row);
  const wallS = Math.round((Date.now() - started) / 1000);
  console.log(
    `${day} | ${row.rssMb} | ${row.heapMb} | ${row.diskMb} | ${row.series} | ${row.events} | ${row.webhooks} | ${wallS}`,
  );
}

// Let the outbox drain: a minute of service time, in steps, with no new racing checked.
let final = await scrape();
for (let i = 0; i < 240 && final.depth > 0; i++) {
  await step(STEP_MS);
  final = await scrape();
}

const judgements: Array<[string, boolean]> = [];
const from = days[Math.min(2, days.length - 1)]!;
const last = days.at(-1)!;
judgements.push([
  `heap after GC from day ${from.day} to ${last.day}: ${from.heapMb} -> ${last.heapMb} MB (at most +5 %)`,
  last.heapMb <= from.heapMb * 1.05,
]);
judgements.push([
  `metric series from day ${from.day} to ${last.day}: ${from.series} -> ${last.series} (at most +5 %)`,
  last.series <= from.series * 1.05,
]);
const growth = days.map((d, i) => d.diskMb - (i === 0 ? 0 : days[i - 1]!.diskMb));
const mostPerDay = Math.max(...growth);
judgements.push([
  `DATA_DIR growth per day at most ${mb(GB)} MB: most ${mostPerDay.toFixed(1)} MB`,
  mostPerDay <= mb(GB),
]);
judgements.push([
  `DATA_DIR on day ${last.day} at most 2 days of growth: ${last.diskMb} MB <= 2 x ${mostPerDay.toFixed(1)} MB`,
  last.diskMb <= 2 * mostPerDay,
]);
judgements.push([
  `every webhook delivered: outbox depth ${final.depth}, ${final.failed} failed, ${delivered.size} received`,
  final.depth === 0 && final.failed === 0 && delivered.size > 0,
]);
judgements.push([`WebSocket clients received ${wsMessages} messages`, wsMessages > 0]);

for (const ws of sockets) ws.terminate();
await racewire.stop();
receiver.close();
rmSync(dir, { recursive: true, force: true });
for (const [text, ok] of judgements) console.log(`${ok ? 'pass' : 'FAIL'}: ${text}`);
const passed = judgements.filter(([, ok]) => ok).length;
console.log(`wall ${Math.round((Date.now() - started) / 1000)} s`);
console.log(`${passed} passed, ${judgements.length - passed} failed`);
process.exit(passed === judgements.length ? 0 : 1);
