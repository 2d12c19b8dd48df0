/**
 * Freshness under budget (issue: change pipeline). Plays a stretch of the real day's timetable (748 races)
 * through the simulator on a virtual clock at 100 requests a minute, three times with the same seed and
 * window: racewire's scheduler, a naive round-robin over unsettled races, and the common scraper (each race
 * every 60 s from 15 minutes before its start until Final). Detection latency = the time racewire appended
 * the event minus the time the simulator made the change (its journal), by type.
 *
 *   npx tsx bench/freshness.ts [--hours 3] [--from 2025-07-16T17:00:00Z-equivalent offset in hours]
 *
 * Everything runs in one process on a manual clock: the simulator is called through fastify's inject (no
 * sockets), and virtual time moves in 100 ms steps only once the work in flight has settled, so CPU speed
 * does not leak into the latencies.
 */
import { pino } from 'pino';
import { createMemoryBus } from '../src/bus/bus.js';
import { createManualClock } from '../src/clock.js';
import type { LogEntry } from '../src/events/envelope.js';
import { createInProcessFetch } from '../src/simulator/in-process-fetch.js';
import { createSimulator, type SimChange } from '../src/simulator/index.js';
import { createMemoryEventLog } from '../src/store/index.js';
import { createRacingClient } from '../src/upstream/client.js';
import { createRateLimiter } from '../src/upstream/rate-limiter.js';
import { createPoller } from '../src/watch/poller.js';
import { createRacePipeline } from '../src/watch/race-pipeline.js';
import { type Pick, pickNext, type SchedulerInput } from '../src/watch/scheduler.js';
import { roundRobin, scraper } from './baseline-strategies.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const HOURS = Number(args.get('hours') ?? 3);
const RPM = Number(args.get('rpm') ?? 100);
const SEED = Number(args.get('seed') ?? 7);
const DAY = '2026-11-20';
// The busiest stretch of the real timetable (13 races within 10 minutes around 17:56 UTC on its first day),
// laid onto DAY: the timetable's first race day maps to DAY - 1.
const FROM = Date.parse(args.get('from') ?? '2026-11-19T17:00:00Z');
const TO = FROM + HOURS * 3_600_000;
const WARMUP = 20 * 60_000;
const STEP = 100;
const MINUTE = 60_000;

type Strategy = (input: SchedulerInput) => Pick;

interface RunResult {
  name: string;
  requests: number[];
  entries: LogEntry[];
  journal: SimChange[];
  starts: Map<string, number>;
  wallMs: number;
}

async function run(name: string, strategy: Strategy, discoveryIntervalMs: number): Promise<RunResult> {
  const wall = Date.now();
  const clock = createManualClock(FROM - 2 * MINUTE);
  const logger = pino({ level: 'silent' });
  const sim = await createSimulator({ seed: SEED, clock, day: DAY, rateLimit: false, logger });
  const requests: number[] = [];
  const { fetch, inFlight } = createInProcessFetch(sim, () => requests.push(clock.now()));
  const limiter = createRateLimiter({ maxPerMinute: RPM, clock });
  const client = createRacingClient({
    baseUrl: 'http://sim/affiliates/v1/racing',
    limiter,
    clock,
    fetch,
    logger,
  });
  const log = createMemoryEventLog({ window: 100_000 });
  const bus = createMemoryBus();
  const entries: LogEntry[] = [];
  bus.subscribe((batch) => entries.push(...batch));
  const pipeline = createRacePipeline({ log, bus, clock, logger });
  const poller = createPoller({
    source: client,
    clock,
    logger,
    onEvent: (raceId, payload) => pipeline.process(raceId, payload),
    subscribers: () => new Map(),
    discoveryIntervalMs,
    strategy,
  });
  poller.start();
  while (clock.now() < TO) {
    // Let work in flight finish before virtual time moves on.
    for (let spins = 0; inFlight() > 0 && spins < 1000; spins++) await new Promise((r) => setImmediate(r));
    await clock.advance(STEP);
  }
  // Close the limiter first: workers waiting for a slot would otherwise wait for time that no longer moves.
  limiter.close();
  await poller.stop();
  const starts = new Map([...poller.races().values()].map((r) => [r.raceId, r.startTime]));
  const journal = sim.journal();
  await sim.close();
  return { name, requests, entries, journal, starts, wallMs: Date.now() - wall };
}

/** Which event type shows each kind of simulator change. */
const EVENT_FOR: Partial<Record<SimChange['type'], string>> = {
  odds: 'odds.changed',
  scratching: 'runner.scratched',
  status: 'race.status_changed',
  results: 'race.results',
  dividends: 'race.dividends',
  start_time: 'race.start_time_changed',
};

function latencies(result: RunResult) {
  const byRace = new Map<string, { type: string; at: number; entrantId?: string }[]>();
  for (const e of result.entries) {
    if (e.kind !== 'event' || !e.event.raceId) continue;
    const data = e.event.data as { runner?: { entrantId?: string } };
    const list = byRace.get(e.event.raceId) ?? [];
    list.push({ type: e.event.type, at: Date.parse(e.timestamp), entrantId: data.runner?.entrantId });
    byRace.set(e.event.raceId, list);
  }
  const out = new Map<string, { ms: number[]; missed: number }>();
  const bucket = (key: string) => {
    const b = out.get(key) ?? { ms: [], missed: 0 };
    out.set(key, b);
    return b;
  };
  for (const change of result.journal) {
    if (change.at < FROM + WARMUP || change.at > TO - 5 * MINUTE) continue;
    const type = EVENT_FOR[change.type];
    if (!type) continue;
    const start = result.starts.get(change.raceId);
    let key: string = change.type;
    if (change.type === 'scratching') key = change.detail.late ? 'scratching (late)' : 'scratching (early)';
    if (change.type === 'odds') {
      if (start === undefined || change.at < start - 10 * MINUTE || change.at > start) continue;
      key = 'odds (last 10 min)';
    }
    const entrantId = (change.detail.entrantId ?? change.detail.entrant_id) as string | undefined;
    const hit = (byRace.get(change.raceId) ?? []).find(
      (e) =>
        e.type === type && e.at >= change.at && (!entrantId || !e.entrantId || e.entrantId === entrantId),
    );
    if (hit) bucket(key).ms.push(hit.at - change.at);
    else bucket(key).missed++;
  }
  return out;
}

function maxInWindow(times: number[]): number {
  let max = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi]! - times[lo]! >= MINUTE) lo++;
    max = Math.max(max, hi - lo + 1);
  }
  return max;
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const s = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);

async function main() {
  const runs = [
    await run('racewire', pickNext, 6_000),
    await run('round-robin', roundRobin, 60_000),
    await run('scraper (60 s from -15 min)', scraper, 60_000),
  ];
  console.log(`freshness: ${HOURS} h from ${new Date(FROM).toISOString()} at ${RPM} req/min, seed ${SEED}`);
  for (const r of runs) {
    const lat = latencies(r);
    console.log(
      `\n## ${r.name}: ${r.requests.length} requests, max ${maxInWindow(r.requests)} in any 60 s window, ${(r.wallMs / 1000).toFixed(0)} s wall`,
    );
    console.log('| change | n | p50 | p95 | missed |');
    console.log('|---|---|---|---|---|');
    for (const [key, { ms, missed }] of [...lat].sort()) {
      console.log(`| ${key} | ${ms.length} | ${s(pct(ms, 50))} | ${s(pct(ms, 95))} | ${missed} |`);
    }
  }
}

await main();
