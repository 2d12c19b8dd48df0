/** Binds the gauges collected on scrape (metrics.ts) to the components they describe, and counts bus entries. */

import type { NodeStatus } from '../backend/ports.js';
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { DiscoveryStatus } from '../watch/discovery-windows.js';
import type { RaceView } from '../watch/poller.js';
import { FIGURE_DEADLINE_MS, lastKnown } from './deadline.js';
import type { Metrics } from './metrics.js';

export interface MetricComponents {
  bus: Bus;
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

/** Returns a function that stops counting bus entries. */
export function bindMetricSources(metrics: Metrics, c: MetricComponents): () => void {
  metrics.sources.budget = c.budget;
  metrics.sources.staleness = function* () {
    const current = c.view();
    for (const race of current.races().values()) {
      const ms = current.staleness(race.raceId);
      if (ms !== undefined && race.finishedAt === undefined) yield { raceId: race.raceId, ms };
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
