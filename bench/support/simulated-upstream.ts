/**
 * The upstream of the day-long benches: the simulator answering in-process on a manual virtual clock, behind
 * racewire's real racing client and rate limiter, so every request is held to the budget and parsed and
 * validated as in production, with no socket in between (bench/freshness.ts through freshness-drive.ts,
 * bench/store-day.ts).
 */
import { type Logger, pino } from 'pino';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { createRacingClient, type RacingClient } from '../../src/upstream/client.js';
import { createRateLimiter, type RateLimiter } from '../../src/upstream/rate-limiter.js';

export interface SimulatedUpstreamOptions {
  seed: number;
  /** The simulator's race day (`YYYY-MM-DD`). */
  day: string;
  /** Virtual time the clock starts at (epoch ms). */
  from: number;
  /** Requests a minute the limiter allows. */
  rpm: number;
  /** Sees each request as it is sent (the simulator's URL). */
  onSend?: (url: URL, sim: Simulator, now: number) => void;
}

export interface SimulatedUpstream {
  clock: ManualClock;
  logger: Logger;
  sim: Simulator;
  limiter: RateLimiter;
  client: RacingClient;
  /** Resolves once the simulator has answered every request sent: virtual time waits for it. */
  idle: () => Promise<void>;
}

export async function simulatedUpstream(opts: SimulatedUpstreamOptions): Promise<SimulatedUpstream> {
  const clock = createManualClock(opts.from);
  const logger = pino({ level: 'silent' });
  const sim = await createSimulator({ seed: opts.seed, clock, day: opts.day, rateLimit: false, logger });
  const onSend = opts.onSend;
  const { fetch, idle } = createInProcessFetch(sim, onSend && ((url) => onSend(url, sim, clock.now())));
  const limiter = createRateLimiter({ maxPerMinute: opts.rpm, clock });
  const client = createRacingClient({
    baseUrl: 'http://sim/affiliates/v1/racing',
    limiter,
    clock,
    fetch,
    logger,
  });
  return { clock, logger, sim, limiter, client, idle };
}
