/** The operations summary (`GET /v1/ops`, the board): each part read from the component it describes. */
import type { NodeStatus, OpsSummary } from '@racewire/client/protocol';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../upstream/rate-limiter.js';
import type { RaceView, SliceCounts } from '../watch/fetch/poller.js';
import { planBudget } from '../watch/schedule/budget-plan.js';
import type { DiscoveryStatus } from '../watch/schedule/discovery-windows.js';
import { type FreshnessSettings, pollPolicy } from '../watch/schedule/poll-policy.js';
import { FIGURE_DEADLINE_MS, lastKnown } from './deadline.js';
import type { ProcessUsage } from './process-usage.js';

/** One transport's subscribers, as the summary reports them. */
export interface TransportOps {
  connections: number;
  subscribers: ReadonlyMap<string, number>;
  slowDisconnects: number;
}

export interface OpsSources {
  clock: Clock & { speed?: number };
  /** Bounds the wait for the webhook figures (in Redis with STORE=redis). */
  wall: Clock;
  limiter: Pick<RateLimiter, 'stats'>;
  view: () => RaceView;
  /** Subscribers per race, as the scheduler sees them (they raise a race's priority). */
  subscribers: () => ReadonlyMap<string, number>;
  /** Refresh interval of a live day: discovery's share of the budget, one page a refresh. */
  discoveryIntervalMs: number;
  /** The scheduler's trade-off, so the plan is the one the poller runs. */
  freshness?: FreshnessSettings;
  ws: () => TransportOps;
  sse: () => TransportOps;
  /** The webhook service's figures (delivery/webhooks), as much of them as the summary shows. */
  webhooks: { stats(): Promise<{ pending: number; failing: number }> };
  /** The process's memory and disk (process-usage.ts). */
  usage: () => ProcessUsage;
  /** Present when several nodes share the backend. */
  cluster?: () => NodeStatus;
  /** This node's discovery, while it polls (undefined on a follower). */
  discovery?: () => DiscoveryStatus | undefined;
  /** This node's requests of the last minute by slice, while it polls (undefined on a follower). */
  spent?: () => SliceCounts | undefined;
}

export function opsSummary(sources: OpsSources): () => Promise<OpsSummary> {
  const { clock } = sources;
  // During a Redis outage the summary answers the last webhook figures read, marked stale.
  const hookStats = lastKnown(async () => pick(await sources.webhooks.stats()), {
    initial: { pending: 0, failing: 0 },
    deadlineMs: FIGURE_DEADLINE_MS,
    wall: sources.wall,
  });
  return async () => {
    const budget = sources.limiter.stats();
    const races = sources.view().races();
    // Settled means the scheduler will not fetch it again: the scheduler's own rule, not a second one.
    let settled = 0;
    for (const race of races.values()) if (!pollPolicy(race, clock.now(), 0)) settled++;
    const transport = (t: TransportOps) => ({
      connections: t.connections,
      subscribers: [...t.subscribers.values()].reduce((a, b) => a + b, 0),
      slowDisconnects: t.slowDisconnects,
    });
    const hooks = await hookStats.get();
    const discoveryPerMinute = 60_000 / sources.discoveryIntervalMs;
    const plan = planBudget({
      races: races.values(),
      now: clock.now(),
      subscribers: sources.subscribers(),
      racesPerMinute: budget.maxPerMinute - discoveryPerMinute,
      settings: sources.freshness,
    });
    return {
      time: clock.now(),
      clockSpeed: clock.speed ?? 1,
      budget: {
        maxPerMinute: budget.maxPerMinute,
        used: budget.used,
        left: budget.left,
        queued: budget.queued,
        paused: budget.pausedUntil !== null,
        saturated: plan.saturated,
        discoveryPerMinute,
        nearJump: plan.nearJump,
        nearJumpShare: plan.nearJumpShare,
        // Requests a minute by slice: as planned now, and as this node spent them in the last minute.
        slices: {
          planned: roundAll({ discovery: discoveryPerMinute, ...plan.slices }),
          spent: sources.spent?.() ?? null,
        },
      },
      // Only for races with data, whose age it judges: the board polls this every 2 s.
      plannedMs: Object.fromEntries(
        [...plan.intervalMs]
          .filter(([id]) => races.get(id)?.lastGoodAt !== undefined)
          .map(([id, ms]) => [id, Math.round(ms)]),
      ),
      races: { watched: races.size - settled, settled },
      ws: transport(sources.ws()),
      sse: transport(sources.sse()),
      webhooks: {
        pending: hooks.value.pending,
        failing: hooks.value.failing,
        ...(hooks.stale ? { stale: true } : {}),
      },
      discovery: sources.discovery?.() ?? null,
      process: sources.usage(),
      ...(sources.cluster ? { cluster: clusterStatus(sources.cluster(), hooks.stale) } : {}),
    };
  };
}

/** Redis is up for the summary only if the figures it read from Redis are current. */
function clusterStatus(status: NodeStatus, stale: boolean): NodeStatus {
  return stale ? { ...status, redisUp: false } : status;
}

const pick = ({ pending, failing }: { pending: number; failing: number }) => ({ pending, failing });

const roundAll = (counts: SliceCounts): SliceCounts =>
  Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Math.round(v * 10) / 10])) as SliceCounts;
