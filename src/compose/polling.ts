/**
 * Wiring of the polling role (src/watch/polling-role.ts): the racing client as its source, the store's log and
 * bus, the market and scheduler settings, and its metrics. Leadership starts and stops it.
 */
import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { countDroppedRows, type Metrics } from '../http/metrics.js';
import type { Logger } from '../logger.js';
import type { RacingClient } from '../upstream/client.js';
import { marketEventOptions } from '../watch/fetch/market-data.js';
import { createPollingRole, type PollingRole } from '../watch/polling-role.js';
import type { FreshnessSettings } from '../watch/schedule/poll-policy.js';

/** The budget's slices for scratchings (SCHEDULER_*): the scheduler spends by them, the ops view shows them. */
export const freshnessSettings = (config: Config): FreshnessSettings => ({
  lateScratchingMaxAgeMs: config.SCHEDULER_LATE_SCRATCHING_MAX_AGE_MS,
  earlyScratchingShare: config.SCHEDULER_EARLY_SCRATCHING_SHARE,
  earlyScratchingMaxAgeMs: config.SCHEDULER_EARLY_SCRATCHING_MAX_AGE_MS,
});

export function wirePolling(deps: {
  config: Config;
  client: RacingClient;
  backend: Backend;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Subscribers per race over every node: the scheduler weighs races by them. */
  subscribers: () => ReadonlyMap<string, number>;
}): PollingRole {
  const { config, backend, metrics } = deps;
  return createPollingRole({
    source: deps.client,
    log: backend.log,
    bus: backend.bus,
    clock: deps.clock,
    logger: deps.logger,
    subscribers: deps.subscribers,
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
    eventOptions: marketEventOptions({
      mode: config.MARKET_DATA,
      windowMinutes: config.MARKET_DATA_WINDOW_MIN,
      options: config.MARKET_DATA_OPTIONS,
    }),
    market: config.MARKET_THRESHOLDS,
    raceStates: { maxBytes: config.RACE_CACHE_BYTES },
    freshness: freshnessSettings(config),
    onOutcome: (outcome) => {
      if (outcome.kind === 'rejected') metrics.rejectedPayloads.inc({ code: outcome.code ?? 'unknown' });
      countDroppedRows(metrics, outcome.droppedRows);
    },
    onDroppedRows: (rows) => countDroppedRows(metrics, rows),
    onDiscoveryAlarm: (alarm) => metrics.discoveryAlarms.inc({ code: alarm.code }),
    handedOver: backend.sharedView,
  });
}
