/** The operations summary (`GET /v1/ops`, the board): each part read from the component it describes. */
import type { NodeStatus } from '../backend/ports.js';
import type { Clock } from '../clock.js';
import type { WebhookService } from '../delivery/webhooks/index.js';
import type { RateLimiter } from '../upstream/rate-limiter.js';
import { pollPolicy } from '../watch/poll-policy.js';
import type { RaceView } from '../watch/poller.js';
import type { OpsSummary } from './race-routes.js';

export interface OpsSources {
  clock: Clock & { speed?: number };
  limiter: Pick<RateLimiter, 'stats'>;
  view: () => RaceView;
  ws: () => {
    connections: number;
    subscribers: ReadonlyMap<string, number>;
    slowDisconnects: number;
  };
  webhooks: Pick<WebhookService, 'stats'>;
  /** Present when several nodes share the backend. */
  cluster?: () => NodeStatus;
}

export function opsSummary(sources: OpsSources): () => Promise<OpsSummary> {
  const { clock } = sources;
  return async () => {
    const budget = sources.limiter.stats();
    const races = sources.view().races();
    // Settled means the scheduler will not fetch it again: the scheduler's own rule, not a second one.
    let settled = 0;
    for (const race of races.values()) if (!pollPolicy(race, clock.now(), 0)) settled++;
    const ws = sources.ws();
    const hooks = await sources.webhooks.stats();
    return {
      time: clock.now(),
      clockSpeed: clock.speed ?? 1,
      budget: {
        maxPerMinute: budget.maxPerMinute,
        used: budget.used,
        left: budget.left,
        queued: budget.queued,
      },
      races: { watched: races.size - settled, settled },
      ws: {
        connections: ws.connections,
        subscribers: [...ws.subscribers.values()].reduce((a, b) => a + b, 0),
        slowDisconnects: ws.slowDisconnects,
      },
      webhooks: { pending: hooks.pending, failing: hooks.failing },
      ...(sources.cluster ? { cluster: sources.cluster() } : {}),
    };
  };
}
