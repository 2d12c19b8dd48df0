/** Binds the gauges collected on scrape (metrics.ts) to the components they describe, and counts bus entries. */

import type { NodeStatus } from '@racewire/client/protocol';
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { RaceView } from '../watch/fetch/poller.js';
import type { DiscoveryStatus } from '../watch/schedule/discovery-windows.js';
import type { RaceWatch } from '../watch/track/race-watch.js';
import { FIGURE_DEADLINE_MS, lastKnown } from './deadline.js';
import type { Metrics } from './metrics.js';

export interface MetricComponents {
  bus: Bus;
  /** Race time: which races are live now. */
  clock: Clock;
  budget: () => { used: number; left: number; queued: number };
  view: () => RaceView;
  outboxDepth: () => Promise<number>;
  /** Present when several nodes share the backend. */
  cluster?: () => NodeStatus;
  /** This node's discovery while it polls. */
  discovery: () => DiscoveryStatus | undefined;
  /** Bounds the wait for store-backed figures (the outbox depth is in Redis with STORE=redis). */
  wall: Clock;
}

/**
 * A race has a `racewire_race_staleness_seconds` series while it is live: fetched, not Final or Abandoned, and
 * within LIVE_HORIZON_MS of its advertised start or past it. Races further ahead are fetched minutes apart by
 * design, and the multi-day window lists about 1,500 of them: their ages are in `/v1/ops` (`staleMs`), so the
 * number of series follows the races running now, not the days listed.
 */
export const LIVE_HORIZON_MS = 60 * 60_000;

export function isLive(race: RaceWatch, now: number): boolean {
  return (
    race.lastGoodAt !== undefined && race.finishedAt === undefined && race.startTime - now <= LIVE_HORIZON_MS
  );
}

/** Returns a function that stops counting bus entries. */
export function bindMetricSources(metrics: Metrics, c: MetricComponents): () => void {
  metrics.sources.budget = c.budget;
  metrics.sources.staleness = function* () {
    const current = c.view();
    const now = c.clock.now();
    for (const race of current.races().values()) {
      const ms = current.staleness(race.raceId);
      if (ms !== undefined && isLive(race, now)) yield { raceId: race.raceId, ms };
    }
  };
  // A scrape during a Redis outage answers the last depth read, and says so with racewire_redis_up 0.
  const depth = lastKnown(c.outboxDepth, { initial: 0, deadlineMs: FIGURE_DEADLINE_MS, wall: c.wall });
  metrics.sources.outboxDepth = async () => (await depth.get()).value;
  const cluster = c.cluster;
  if (cluster) {
    metrics.sources.cluster = async () => {
      const { leader, redisUp, dataLost, dataLosses } = cluster();
      return {
        leader,
        redisUp: redisUp && !(await depth.get()).stale,
        dataLost: Boolean(dataLost),
        dataLosses: dataLosses ?? 0,
      };
    };
  }
  metrics.sources.discoveryFailingDays = () => c.discovery()?.failing.length;
  return c.bus.subscribe((entries) => {
    for (const entry of entries) {
      if (entry.kind === 'event') metrics.events.inc({ type: entry.event.type });
      else if (entry.kind === 'patch')
        metrics.patchBytes.observe({ kind: 'patch' }, JSON.stringify(entry.ops).length);
      else metrics.patchBytes.observe({ kind: 'snapshot' }, JSON.stringify(entry.document).length);
    }
  });
}
