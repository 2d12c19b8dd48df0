/**
 * The upstream racewire polls, with the race clock it runs on: the racing API (RACING_API_URL, the system
 * clock), a replayed recording (REPLAY_FILE) or the embedded simulator (the default), both on a clock
 * SIMULATOR_SPEED times real time that resumes, when the store keeps its data in a directory (STORE=sqlite:
 * DATA_DIR), from the instant kept there (clock-checkpoint.ts).
 */
import type { UpstreamKind } from '@racewire/client/protocol';
import { type Clock, createScaledClock, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startReplay } from '../replay/index.js';
import { createSimulator, type Simulator } from '../simulator/index.js';
import { type Checkpoints, keepCheckpoints, readCheckpoint } from './clock-checkpoint.js';

/** A wire type of /v1/ops: the SDK declares it. */
export type { UpstreamKind };

export interface Upstream {
  /** Base URL including /affiliates/v1/racing. */
  baseUrl: string;
  /** The race clock. */
  clock: Clock & { speed?: number };
  kind: UpstreamKind;
  simulator?: Simulator;
  /** Starts keeping the clock's instant (every second of wall time), when there is a directory to keep it in. */
  start(): void;
  /** Call once nothing more will be stored: keeps the clock's last instant, then stops the upstream. */
  close(): Promise<void>;
}

/** How often the clock's instant is written, in wall-clock ms. */
const CHECKPOINT_INTERVAL_MS = 1000;

export async function startUpstream(opts: {
  config: Config;
  logger: Logger;
  /** Builds the race clock from its first instant. @default a clock SIMULATOR_SPEED times real time */
  clockFrom?: (origin: number) => Clock & { speed?: number };
  /**
   * Where the store keeps its data across restarts (the backend driver's `dataDir`): the clock resumes from
   * the instant kept there. Undefined: nothing survives the process, so the clock starts afresh each time.
   */
  checkpointDir?: string;
}): Promise<Upstream> {
  const { config, logger } = opts;
  if (config.RACING_API_URL !== undefined) {
    return {
      baseUrl: config.RACING_API_URL,
      clock: systemClock,
      kind: 'racing API',
      start() {},
      close: async () => {},
    };
  }
  const speed = config.SIMULATOR_SPEED;
  const clockFrom = opts.clockFrom ?? ((origin: number) => createScaledClock({ origin, speed }));
  const identity = config.REPLAY_FILE
    ? `replay:${config.REPLAY_FILE}`
    : `simulator:seed=${config.SIMULATOR_SEED}`;
  const dir = opts.checkpointDir;
  const resumeAt = dir === undefined ? undefined : await readCheckpoint(dir, identity, logger);
  // Never before what DATA_DIR already holds.
  const from = (start: number) => {
    const clock = clockFrom(Math.max(start, resumeAt ?? start));
    if (resumeAt !== undefined && resumeAt > start) {
      logger.info({ at: new Date(resumeAt).toISOString() }, 'upstream clock resumes where DATA_DIR left it');
    }
    return clock;
  };

  let checkpoints: Checkpoints | undefined;
  const keep = (clock: Clock) => () => {
    if (dir === undefined || checkpoints) return;
    const leadMs = 2 * CHECKPOINT_INTERVAL_MS * ((clock as { speed?: number }).speed ?? speed);
    checkpoints = keepCheckpoints({ dir, upstream: identity, clock, leadMs, logger });
  };

  if (config.REPLAY_FILE) {
    const replay = await startReplay({
      paths: [config.REPLAY_FILE],
      from: config.REPLAY_FROM === undefined ? undefined : Date.parse(config.REPLAY_FROM),
      clockFrom: from,
      logger: logger.child({ component: 'replay' }),
    });
    return {
      baseUrl: replay.url,
      clock: replay.clock,
      kind: 'replay',
      start: keep(replay.clock),
      async close() {
        await checkpoints?.stop();
        await replay.close();
      },
    };
  }

  const clock = from(Date.now());
  const simulator = await createSimulator({
    ...embeddedSimulatorOptions(config, clock.now()),
    clock,
    logger: logger.child({ component: 'simulator' }),
  });
  return {
    baseUrl: await simulator.listen({ port: 0, host: '127.0.0.1' }),
    clock,
    kind: 'embedded simulator',
    simulator,
    start: keep(clock),
    async close() {
      await checkpoints?.stop();
      await simulator.close();
    },
  };
}

/**
 * The embedded simulator's seed, day and rate limit for a race clock starting at `now`: the soak builds the
 * same simulator in a worker thread (bench/support/simulator-worker.ts) from these.
 */
export function embeddedSimulatorOptions(
  config: Pick<Config, 'SIMULATOR_SEED' | 'RACING_API_MAX_RPM'>,
  now: number,
): { seed: number; day: string; rateLimit: { perMinute: number } } {
  // The simulator's own limit sits above ours, as a real provider's would: racewire must never reach it.
  return {
    seed: config.SIMULATOR_SEED,
    day: demoDay(now),
    rateLimit: { perMinute: Math.ceil(config.RACING_API_MAX_RPM * 1.2) },
  };
}

/**
 * The UTC day to lay the real timetable on so that `now` falls inside its racing: the timetable runs from
 * 14:15 UTC the day before to 17:02 UTC on the day, so from mid-afternoon UTC on, tomorrow's day is live.
 */
export function demoDay(now: number): string {
  const date = new Date(now);
  if (date.getUTCHours() >= 15) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}
