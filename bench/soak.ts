/**
 * The soak: the whole service (poller, pipelines, SQLite log, retention, the subscription hub with WebSocket
 * clients on the firehose and a WebSocket and an SSE client following the next races to jump, one webhook
 * endpoint) against the embedded simulator (answered in a worker thread: see `upstreamFetch`) over N
 * simulated race days, as fast as the machine allows. Race time and wall time are two manual clocks moved together in steps once no request is
 * in flight, so the service runs as at x1 against the real budget, only faster than real time. Prints per
 * simulated day: RSS, V8 heap used after a forced GC, DATA_DIR bytes, metric series, events appended and
 * webhooks delivered; the last line `N passed, N failed` judges the run (docs/benchmarks.md, Soak).
 *
 *   npm run soak -- --days 7 [--store sqlite|redis] [--rpm 100] [--seed 1] [--step-ms 5000] [--hours H]
 *                    [--from 2026-11-19T17:00:00Z] [--simulator worker|in-process]
 *
 * (node --expose-gc --max-semi-space-size=64 --min-semi-space-size=64, as the npm script runs it: semi-spaces of
 * 64 MB, fixed, where V8's default grows to 16 MB and scavenges every ~200 ms of the soak, mid-request, promoting
 * what one request's payload and parse still hold; less CPU and wall for about 150 MB more RSS, docs/benchmarks.md
 * "The soak's race day, cheaper". The first line prints the flags a run had.) `--store redis` runs the Redis log, bus and outbox on a
 * redis-server the soak starts itself (`--redis-port`, default 41400), without persistence, and stops however it ends
 * (also by SIGINT or SIGTERM); Redis's memory
 * stands where DATA_DIR stands for SQLite. `--hours H` stops after H race hours (a cost measurement: the
 * judgements need 3 days and say so). Every race hour a line on stderr gives the trend and the cost: CPU
 * seconds of this process (the simulator's worker thread included) and upstream requests so far. `--max-wall-min M` stops the
 * same way after M minutes of wall time. `--keep-data-dir yes` leaves DATA_DIR for `bench/log-bytes.ts`.
 * `--store redis --redis-families yes` adds to every hourly line Redis's memory by key family
 * (`support/redis-bytes.ts`); `--keep-redis yes` leaves the soak's redis-server running at the end (its pid and
 * url printed) for `bench/redis-bytes.ts`.
 * `--from T` starts both clocks at the instant T instead of now: without it a run covers the races of the
 * wall clock's time of day, so two runs started at different hours cannot be compared.
 * `--heap-snapshots 6,18,30 --heap-dir DIR` writes a V8 heap snapshot after the forced GC at the end of each
 * of those race hours (counted from the start, 1 = the first), as DIR/hour-6.heapsnapshot etc.: hour 6 and
 * hour 30 are the same time of day a day apart, so what grows between them is per-day growth
 * (`bench/heap-diff.ts` compares two). Each snapshot is about the heap's size and stops the run while written.
 *
 * `--simulator worker` (the default) answers the racing API from a simulator in a worker thread, on the
 * second core: the same requests, events and webhooks as `--simulator in-process` (the simulator of the
 * service itself, through fastify's inject on the soak's thread), in less wall time (docs/benchmarks.md).
 * With the worker, "heap after GC" is the soak's thread only: the service and the harness, not the simulator
 * the service polls (RSS counts both).
 *
 * Time moves in steps of --step-ms (both clocks), each once no request is in flight: under the 10 s upstream
 * timeout, so no request times out for a step it waited on.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { createManualClock, type ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createInFlight } from '../src/in-flight.js';
import { embeddedSimulatorOptions, startRacewire } from '../src/runtime.js';
import { createInProcessFetch } from '../src/simulator/in-process-fetch.js';
import { familiesLine, familiesTable } from './support/redis-bytes.js';
import { startSimulatorWorker } from './support/simulator-worker-fetch.js';
import { followBusiestRaces } from './support/soak-followers.js';
import { type SoakRedis, startSoakRedis } from './support/soak-redis.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const DAYS = Number(args.get('days') ?? 7);
const HOURS = Number(args.get('hours') ?? DAYS * 24);
const STORE = args.get('store') ?? 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'redis') throw new Error(`--store sqlite or --store redis, not ${STORE}`);
const REDIS_PORT = Number(args.get('redis-port') ?? 41_400);
/** Stop (and judge what ran) after this many wall minutes: a run that must end by a deadline. */
const MAX_WALL_MS = Number(args.get('max-wall-min') ?? Number.POSITIVE_INFINITY) * 60_000;
const RPM = args.get('rpm') ?? '100';
const SEED = args.get('seed') ?? '1';
const STEP_MS = Number(args.get('step-ms') ?? 5_000);
/** `--simulator worker|in-process`: where the racing API is answered (see `upstreamFetch`). */
const SIMULATOR = args.get('simulator') ?? 'worker';
if (SIMULATOR !== 'worker' && SIMULATOR !== 'in-process')
  throw new Error(`--simulator worker or --simulator in-process, not ${SIMULATOR}`);
/** `--keep-data-dir yes`: leave DATA_DIR for `bench/log-bytes.ts` instead of removing it at the end. */
const KEEP_DATA_DIR = args.get('keep-data-dir') === 'yes';
/** `--redis-families yes`: Redis's memory by key family on every hourly line; `--keep-redis yes`: leave it up. */
const REDIS_FAMILIES = args.get('redis-families') === 'yes';
const KEEP_REDIS = args.get('keep-redis') === 'yes';
/** `--from T`: the instant (ISO 8601) both clocks start at; unset, now. */
const FROM = args.has('from') ? Date.parse(args.get('from')!) : undefined;
if (FROM !== undefined && Number.isNaN(FROM))
  throw new Error(`--from takes an ISO 8601 instant, not ${args.get('from')}`);
/** `--heap-snapshots 6,18,30`: the race hours (from 1) after whose forced GC a heap snapshot goes to --heap-dir. */
const HEAP_SNAPSHOTS = new Set((args.get('heap-snapshots') ?? '').split(',').filter(Boolean).map(Number));
const HEAP_DIR = args.get('heap-dir');
if (HEAP_SNAPSHOTS.size > 0 && !HEAP_DIR) throw new Error('--heap-snapshots needs --heap-dir');
for (const h of HEAP_SNAPSHOTS)
  if (!Number.isInteger(h) || h < 1 || h > HOURS)
    throw new Error(`--heap-snapshots takes race hours from 1 to ${HOURS}, not ${h}`);
if (HEAP_DIR) mkdirSync(HEAP_DIR, { recursive: true });
const DAY_MS = 86_400_000;
const GB = 1e9;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run node with --expose-gc (npm run soak does)');

// Requests in flight (upstream and webhook sends), and Redis commands: time moves only once they are all answered.
const io = createInFlight();
const realFetch = globalThis.fetch;
/**
 * The racing API's requests are answered through fastify's inject by a simulator built as the embedded one
 * in a worker thread (`--simulator worker`, on the second core), or by the embedded simulator on this thread
 * (`--simulator in-process`): the racing client, its limiter, timeout, parse and validation stay the real
 * path; only the loopback socket, undici and node:http's parsing on both sides go (about 15 % of the soak's
 * CPU, docs/benchmarks.md). Until the service has started (and for everything else: webhooks, the soak's own
 * reads) fetch is real.
 */
let upstreamFetch: ((url: string) => Promise<Response>) | undefined;
const UPSTREAM_PATH = '/affiliates/v1/racing/';
globalThis.fetch = async (input, init) => {
  const done = io.start();
  try {
    if (upstreamFetch && typeof input === 'string' && input.includes(UPSTREAM_PATH))
      return await upstreamFetch(input);
    const res = await realFetch(input, init);
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status, headers: res.headers });
  } finally {
    done();
  }
};

/**
 * The webhook endpoint takes every event but the price ticks (`odds.changed`, `odds.pools_changed`): what an
 * operator points a webhook at (scratchings, results, market alerts). Before the tote's moves were batched
 * (protocol 3), `odds.changed` was 97 % of the events at the real budget (about 900 a race minute near the
 * jumps) and, posted one by one, 26 % of the soak's CPU; the WebSocket clients take the whole firehose.
 */
const WEBHOOK_TYPES = ['race.*', 'runner.*', 'market.*', 'pool.*', 'meeting.*', 'odds.plunge', 'odds.drift'];

// Redis commands in flight (the request window, the log, the bus, the outbox): the same rule, for --store redis.
if (STORE === 'redis') {
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
    const [command] = args;
    const done = io.start();
    command.promise.then(done, done);
    return send.apply(this, args);
  };
}

/**
 * One webhook endpoint: counts each delivery once by its id. The ids are remembered for the last
 * 2 x RECENT_IDS deliveries only (two generations of a Set): the soak's own heap is measured with the
 * service's, and every id of a week (~35,000 a race day, ~3 MB) would be growth the service did not make. A
 * redelivery older than that (none: every attempt here answers 204 at once) would be counted twice.
 */
const RECENT_IDS = 20_000;
let seenIds = new Set<string>();
let olderIds = new Set<string>();
let deliveredCount = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = req.headers['webhook-id'];
    if (typeof id === 'string' && !seenIds.has(id) && !olderIds.has(id)) {
      deliveredCount++;
      seenIds.add(id);
      if (seenIds.size >= RECENT_IDS) {
        olderIds = seenIds;
        seenIds = new Set();
      }
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = (receiver.address() as { port: number }).port;

const dir = mkdtempSync(join(tmpdir(), 'racewire-soak-'));
const redis: SoakRedis | undefined = STORE === 'redis' ? await startSoakRedis(REDIS_PORT) : undefined;
// A Redis without persistence is refused unless the operator says it may lose everything: this one may.
process.env.REDIS_ALLOW_VOLATILE = 'true';
const wall: ManualClock = createManualClock(FROM ?? Date.now(), { io });
let race: ManualClock | undefined;
const racewire = await startRacewire({
  config: loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    STORE,
    REDIS_URL: redis?.url,
    REDIS_ALLOW_VOLATILE: 'true',
    LOG_LEVEL: 'silent',
    SIMULATOR_SEED: SEED,
    RACING_API_MAX_RPM: RPM,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  }),
  wallClock: wall,
  clockFrom: (origin) => {
    race = createManualClock(FROM ?? origin, { io });
    return race;
  },
});
if (!race) throw new Error('the upstream did not take the manual clock');
const raceClock: ManualClock = race;
const base = racewire.url;
if (!racewire.simulator) throw new Error('the soak runs on the embedded simulator');
const simulatorWorker =
  SIMULATOR === 'worker'
    ? await startSimulatorWorker({
        ...embeddedSimulatorOptions(
          loadConfig({ SIMULATOR_SEED: SEED, RACING_API_MAX_RPM: RPM }),
          raceClock.now(),
        ),
        clock: raceClock,
      })
    : undefined;
upstreamFetch = simulatorWorker?.fetch ?? createInProcessFetch(racewire.simulator).fetch;

const registered = await fetch(`${base}/v1/webhooks/endpoints`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, eventTypes: WEBHOOK_TYPES }),
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

// Followers: a WebSocket and an SSE client on the next races to jump, moved on every FOLLOW_EVERY_MS.
const FOLLOW_EVERY_MS = 10 * 60_000;
const followers = followBusiestRaces(base, 3);

const bytesIn = (path: string): number => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesIn(join(path, name)), 0);
};
/** What the store holds: DATA_DIR's bytes (SQLite), or the memory of the soak's redis-server. */
const storeBytes = async (): Promise<number> => (redis ? (await redis.figures()).usedBytes : bytesIn(dir));

async function scrape() {
  const text = await (await fetch(`${base}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const sum = (prefix: string) =>
    lines.filter((l) => l.startsWith(prefix)).reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
  return {
    series: lines.length,
    events: sum('racewire_events_total'),
    requests: sum('racewire_upstream_requests_total'),
    expiredStreams: sum('racewire_event_log_expired_streams_total'),
    depth: sum('racewire_webhook_outbox_depth'),
    failed: sum('racewire_webhook_attempts_total{outcome="failed"'),
  };
}

/** Moves both clocks on (each waits first for the I/O in flight: `io`). */
async function step(ms: number): Promise<void> {
  await raceClock.advance(ms);
  await wall.advance(ms);
}

interface Day {
  day: number;
  rssMb: number;
  heapMb: number;
  storeMb: number;
  series: number;
  events: number;
  webhooks: number;
  cpuS: number;
}
const days: Day[] = [];
const mb = (n: number) => Math.round((n / 1e6) * 10) / 10;
const started = Date.now();
const cpuS = () => {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1e5) / 10;
};
const wallS = () => Math.round((Date.now() - started) / 1000);
const storeName = redis ? 'Redis used_memory MB' : 'DATA_DIR MB';
console.log(
  `soak: ${DAYS} race days${HOURS < DAYS * 24 ? ` (stopping after ${HOURS} race hours)` : ''} from ${new Date(raceClock.now()).toISOString()}, store ${STORE}, ${RPM} requests/min, seed ${SEED}, simulator ${SIMULATOR}, node ${process.execArgv.join(' ')}, DATA_DIR ${dir}`,
);
console.log(
  `day | RSS MB | heap after GC MB | ${storeName} | metric series | events appended | webhooks delivered | CPU s | wall s`,
);
const startedAt = raceClock.now();
/** After a forced GC at the end of a race hour: the heap snapshot asked for that hour (--heap-snapshots), if any. */
const snapshotIfAsked = () => {
  const raceHour = Math.round((raceClock.now() - startedAt) / 3_600_000);
  if (HEAP_DIR && HEAP_SNAPSHOTS.has(raceHour))
    console.error(`    heap snapshot ${writeHeapSnapshot(join(HEAP_DIR, `hour-${raceHour}.heapsnapshot`))}`);
};
let stopAt = startedAt + HOURS * 3_600_000;
for (let day = 1; day <= DAYS && raceClock.now() < stopAt; day++) {
  const dayEnd = raceClock.now() + DAY_MS;
  const end = Math.min(stopAt, dayEnd);
  // Every race hour on stderr: the trend within a day and what it costs (CPU, upstream requests).
  let hour = raceClock.now() + DAY_MS / 24;
  let follow = raceClock.now();
  while (raceClock.now() < end) {
    if (raceClock.now() >= follow) {
      await followers.refresh(raceClock.now());
      follow += FOLLOW_EVERY_MS;
    }
    if (Date.now() - started > MAX_WALL_MS) {
      stopAt = raceClock.now();
      break;
    }
    await step(STEP_MS);
    if (raceClock.now() >= hour && raceClock.now() < end) {
      hour += DAY_MS / 24;
      gc();
      const { rss, heapUsed } = process.memoryUsage();
      const m = await scrape();
      console.error(
        `  day ${day} ${new Date(raceClock.now()).toISOString()}: RSS ${mb(rss)} MB, heap after GC ${mb(heapUsed)} MB, ${storeName} ${mb(await storeBytes())}, ${m.requests} requests, ${m.events} events, ${deliveredCount} webhooks, ${m.expiredStreams} expired streams, CPU ${cpuS()} s, wall ${wallS()} s`,
      );
      if (redis && REDIS_FAMILIES) console.error(`    ${familiesLine(await redis.families())}`);
      snapshotIfAsked();
    }
  }
  gc();
  const metrics = await scrape();
  const row: Day = {
    day,
    rssMb: mb(process.memoryUsage().rss),
    heapMb: mb(process.memoryUsage().heapUsed),
    storeMb: mb(await storeBytes()),
    series: metrics.series,
    events: metrics.events,
    webhooks: deliveredCount,
    cpuS: cpuS(),
  };
  // A day cut short by --hours is shown but not judged.
  const full = raceClock.now() >= dayEnd;
  if (full) days.push(row);
  console.log(
    `${day}${full ? '' : ' (partial)'} | ${row.rssMb} | ${row.heapMb} | ${row.storeMb} | ${row.series} | ${row.events} | ${row.webhooks} | ${row.cpuS} | ${wallS()}`,
  );
  // The day's (or the run's) last hour has no hourly line; stopped early by the wall cap, no hour ended here.
  if (raceClock.now() >= end) snapshotIfAsked();
}

// Let the outbox drain: up to 20 minutes of service time, in steps, with no new racing checked.
let final = await scrape();
for (let i = 0; i < 240 && final.depth > 0; i++) {
  await step(STEP_MS);
  final = await scrape();
}
const redisFinal = await redis?.figures();

const judgements: Array<[string, boolean]> = [];
const last = days.at(-1);
if (days.length >= 3 && last) {
  const from = days[2]!;
  judgements.push([
    `heap after GC from day ${from.day} to ${last.day}: ${from.heapMb} -> ${last.heapMb} MB (at most +5 %)`,
    last.heapMb <= from.heapMb * 1.05,
  ]);
  judgements.push([
    `metric series from day ${from.day} to ${last.day}: ${from.series} -> ${last.series} (at most +5 %)`,
    last.series <= from.series * 1.05,
  ]);
  const growth = days.map((d, i) => d.storeMb - (i === 0 ? 0 : days[i - 1]!.storeMb));
  const mostPerDay = Math.max(...growth);
  judgements.push([
    `${storeName} growth per day at most ${mb(GB)}: most ${mostPerDay.toFixed(1)}`,
    mostPerDay <= mb(GB),
  ]);
  judgements.push([
    `${storeName} on day ${last.day} at most 2 days of growth: ${last.storeMb} <= 2 x ${mostPerDay.toFixed(1)}`,
    last.storeMb <= 2 * mostPerDay,
  ]);
} else {
  judgements.push([
    `growth from day 3 on and disk at steady state: ${days.length} full days, needs 3`,
    false,
  ]);
}
// Judged once a whole day has passed (streams expire 24 race hours after they settle).
if (days.length >= 2) {
  judgements.push([
    `retention expired streams: ${final.expiredStreams} (at least one after ${days.length} days)`,
    final.expiredStreams > 0,
  ]);
}
if (redisFinal && last && days.length >= 3) {
  const from = days[2]!;
  judgements.push([
    `Redis keys ${redisFinal.keys} (${redisFinal.expiring} with a TTL), memory ${mb(redisFinal.usedBytes)} MB: no more than day ${from.day}'s ${from.storeMb} MB + 5 %`,
    mb(redisFinal.usedBytes) <= from.storeMb * 1.05,
  ]);
}
judgements.push([
  `every webhook delivered: outbox depth ${final.depth}, ${final.failed} failed, ${deliveredCount} received`,
  final.depth === 0 && final.failed === 0 && deliveredCount > 0,
]);
judgements.push([`WebSocket firehose clients received ${wsMessages} messages`, wsMessages > 0]);
const followed = followers.counts();
judgements.push([
  `race followers received ${followed.ws} WebSocket messages and ${followed.sse} SSE messages`,
  followed.ws > 0 && followed.sse > 0,
]);

for (const ws of sockets) ws.terminate();
followers.close();
await racewire.stop();
await simulatorWorker?.close();
if (redis && REDIS_FAMILIES) console.log(familiesTable(await redis.families()));
if (redis && KEEP_REDIS) console.log(`redis-server kept: ${redis.url}, pid ${redis.leave()}`);
else await redis?.stop();
receiver.close();
if (KEEP_DATA_DIR) console.log(`DATA_DIR kept: ${dir}`);
else rmSync(dir, { recursive: true, force: true });
for (const [text, ok] of judgements) console.log(`${ok ? 'pass' : 'FAIL'}: ${text}`);
const passed = judgements.filter(([, ok]) => ok).length;
console.log(
  `${final.requests} upstream requests, CPU ${cpuS()} s${redisFinal ? ` (and redis-server ${redisFinal.cpuS} s)` : ''}, wall ${wallS()} s`,
);
console.log(`${passed} passed, ${judgements.length - passed} failed`);
process.exit(passed === judgements.length ? 0 : 1);
