/**
 * Retention, scheduled: a role (leadership.ts) that expires the event log (`EventLog.expire`) once when this
 * node starts leading and then every `intervalMs` of wall time while it leads, so one node of a
 * deployment does it. The cutoffs are race time, like the `now` of every append they are compared with:
 * `EVENT_LOG_SETTLED_HOURS` and `EVENT_LOG_RETAIN_DAYS` before the race clock's now. A failed run is logged
 * with code `retention_failed`, counted, and tried again at the next interval; it never stops the service.
 * A leader's job, so it lives here and not in src/store, whose port (`expire`) it only calls.
 */
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { EventLog, ExpireResult, RetentionPolicy } from '../store/ports.js';
import { createWakeLoop } from '../wake-loop.js';
import type { Role } from './leadership.js';

const HOUR_MS = 3_600_000;

export type RetentionSettings = Pick<Config, 'EVENT_LOG_SETTLED_HOURS' | 'EVENT_LOG_RETAIN_DAYS'>;

/** The policy at race time `raceNow` (ms): settled after the settled hours, forgotten after the retained days. */
export function retentionPolicy(raceNow: number, settings: RetentionSettings): RetentionPolicy {
  return {
    settledBefore: new Date(raceNow - settings.EVENT_LOG_SETTLED_HOURS * HOUR_MS),
    forgetBefore: new Date(raceNow - settings.EVENT_LOG_RETAIN_DAYS * 24 * HOUR_MS),
  };
}

/** How often the leader expires the log, in wall time. */
export const RETENTION_INTERVAL_MS = 10 * 60_000;

export function createRetention(opts: {
  log: Pick<EventLog, 'expire'>;
  settings: RetentionSettings;
  /** Race time: the cutoffs. */
  raceClock: Clock;
  /** Wall time: the interval between runs. */
  wallClock: Clock;
  logger: Logger;
  /** @default RETENTION_INTERVAL_MS */
  intervalMs?: number;
  onExpired?: (result: ExpireResult) => void;
  onFailed?: () => void;
}): Role {
  const { log, logger } = opts;
  const intervalMs = opts.intervalMs ?? RETENTION_INTERVAL_MS;

  async function run(): Promise<number> {
    const policy = retentionPolicy(opts.raceClock.now(), opts.settings);
    const cutoffs = {
      settledBefore: policy.settledBefore.toISOString(),
      forgetBefore: policy.forgetBefore.toISOString(),
    };
    try {
      const result = await log.expire(policy);
      opts.onExpired?.(result);
      const level = result.settled + result.forgotten > 0 ? 'info' : 'debug';
      logger[level]({ ...result, ...cutoffs }, 'event log retention applied');
    } catch (err) {
      opts.onFailed?.();
      logger.error(
        { err, code: 'retention_failed', ...cutoffs },
        'event log retention failed: tried again at the next interval',
      );
    }
    return intervalMs;
  }

  const loop = createWakeLoop(opts.wallClock, run);
  return {
    start: async () => loop.start(),
    stop: () => loop.stop(),
  };
}

/** The retention counters on `registry`, as the hooks `createRetention` takes. */
export function retentionMetrics(
  registry: Registry,
): Required<Pick<Parameters<typeof createRetention>[0], 'onExpired' | 'onFailed'>> {
  const expired = new Counter({
    name: 'racewire_event_log_expired_streams_total',
    help: 'Event log streams newly settled (entries dropped) or forgotten (document dropped) by retention',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: 'racewire_event_log_retention_failures_total',
    help: 'Retention runs that failed (logged with code retention_failed; tried again at the next interval)',
    registers: [registry],
  });
  // Both outcomes exist from the start, so a rate() over them is defined before the first expiry.
  expired.inc({ outcome: 'settled' }, 0);
  expired.inc({ outcome: 'forgotten' }, 0);
  return {
    onExpired: (result) => {
      expired.inc({ outcome: 'settled' }, result.settled);
      expired.inc({ outcome: 'forgotten' }, result.forgotten);
    },
    onFailed: () => failed.inc(),
  };
}
