/**
 * Drives racewire's poller and race pipeline against the simulator on a manual virtual clock (the freshness
 * bench's run, without its measurements): the simulator answers in-process, the real client and limiter hold
 * every request to the budget, and virtual time moves in STEP_MS steps only once the work in flight has
 * settled. Nothing here reads the wall clock, so a seed's run is the same to the request, however busy the
 * machine (test/bench/freshness-drive.test.ts).
 */
import { createMemoryBus } from '../../src/bus/bus.js';
import type { ManualClock } from '../../src/clock.js';
import type { LogEntry } from '../../src/events/envelope.js';
import type { SimChange, SimWorld } from '../../src/simulator/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { createPoller, type RaceSource } from '../../src/watch/fetch/poller.js';
import type { Pick, SchedulerInput } from '../../src/watch/schedule/scheduler.js';
import { createRacePipeline } from '../../src/watch/track/race-pipeline.js';
import { BENCH_DAY } from './freshness-metrics.js';
import { simulatedUpstream } from './simulated-upstream.js';

export type Strategy = (input: SchedulerInput) => Pick;

/** Virtual time moves in steps of this (ms). */
const STEP_MS = 100;

export interface DriveOptions {
  seed: number;
  /** Virtual time the run starts and ends (epoch ms). */
  from: number;
  to: number;
  rpm: number;
  concurrency: number;
  discoveryIntervalMs: number;
  /** The scheduling decision, made once the simulated world is known (a baseline may need it). */
  strategy: (world: SimWorld, clock: ManualClock) => Strategy;
  /** Sees each request as it is sent (the simulator's URL). */
  onSend?: (url: URL, world: SimWorld, now: number) => void;
  /** Wraps the poller's source (a bench traces what enters the limiter's queue). */
  wrapSource?: (source: RaceSource, clock: ManualClock) => RaceSource;
}

export interface Drive {
  world: SimWorld;
  /** The simulator's changes (what happened, when). */
  journal: readonly SimChange[];
  /** What racewire appended (events, with their timestamps on the virtual clock). */
  entries: LogEntry[];
}

export async function drive(opts: DriveOptions): Promise<Drive> {
  const { clock, logger, sim, client, limiter, idle } = await simulatedUpstream({
    seed: opts.seed,
    day: BENCH_DAY,
    from: opts.from,
    rpm: opts.rpm,
    onSend: (url, s, now) => opts.onSend?.(url, s.world, now),
  });
  const strategy = opts.strategy(sim.world, clock);
  const entries: LogEntry[] = [];
  const bus = createMemoryBus();
  bus.subscribe((batch) => entries.push(...batch));
  const pipeline = createRacePipeline({ log: createMemoryEventLog({ window: 100_000 }), bus, clock, logger });
  const source: RaceSource = {
    meetings: (query, ro) => client.meetings(query, ro),
    event: (id, ro) => client.event(id, ro),
    whenReady: (signal) => client.whenReady(signal),
  };
  const poller = createPoller({
    source: opts.wrapSource ? opts.wrapSource(source, clock) : source,
    clock,
    logger,
    onEvent: (raceId, payload) => pipeline.process(raceId, payload),
    subscribers: () => new Map(),
    discoveryIntervalMs: opts.discoveryIntervalMs,
    strategy,
    concurrency: opts.concurrency,
  });
  poller.start();
  while (clock.now() < opts.to) {
    // Let work in flight finish before virtual time moves on.
    await idle();
    await clock.advance(STEP_MS);
  }
  // Close the limiter first: workers waiting for a slot would otherwise wait for time that no longer moves.
  limiter.close();
  await poller.stop();
  const journal = sim.journal();
  await sim.close();
  return { world: sim.world, journal, entries };
}
