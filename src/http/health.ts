/**
 * Liveness and readiness. `/healthz` says the process answers; `/readyz` answers the readiness checks
 * (upstream reachable, store writable, not over budget, ...) as they last ran in the background
 * (readiness-state.ts), 503 naming the ones that fail.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../upstream/rate-limiter.js';
import type { RaceView } from '../watch/fetch/poller.js';
import type { DiscoveryStatus } from '../watch/schedule/discovery-windows.js';
import { type ReadinessCheck, trackReadiness } from './readiness-state.js';

const checkResult = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, detail: {} },
  required: ['ok'],
} as const;

export function registerHealthRoutes(
  app: FastifyInstance,
  checks: () => ReadinessCheck[],
  wall: Clock,
): void {
  const readiness = trackReadiness({ checks, wall });
  app.addHook('onClose', () => readiness.stop());

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process is up and answering',
        response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      },
    },
    async () => ({ ok: true }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: upstream reachable, store writable, within budget',
        response: {
          200: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              checks: { type: 'object', additionalProperties: checkResult },
            },
          },
          503: {
            type: 'object',
            properties: {
              ok: { type: 'boolean' },
              checks: { type: 'object', additionalProperties: checkResult },
            },
          },
        },
      },
    },
    async (_req, reply) => {
      const { ok, checks: results } = await readiness.current();
      return reply.code(ok ? 200 : 503).send({ ok, checks: results });
    },
  );
}

/** Upstream reachable: a discovery succeeded recently (on a follower, the leader's, as it shared it). */
export function upstreamReadiness(
  view: () => Pick<RaceView, 'lastDiscoveryAt'>,
  clock: Clock,
  discoveryIntervalMs: number,
): ReadinessCheck {
  return {
    name: 'upstream',
    check: () => {
      const at = view().lastDiscoveryAt();
      const fresh = at !== undefined && clock.now() - at < discoveryIntervalMs * 5 + 30_000;
      return { ok: fresh, detail: { lastDiscoveryAt: at === undefined ? null : new Date(at).toISOString() } };
    },
  };
}

/**
 * Discovery lists every day of its window: failing while a day's last refresh failed, naming the day, the
 * error's code and message (a listing that cannot be the asked day is one). A node that does not poll (a
 * follower) has no discovery of its own: ready on this count.
 */
export function discoveryReadiness(status: () => DiscoveryStatus | undefined): ReadinessCheck {
  return {
    name: 'discovery',
    check: () => {
      const now = status();
      if (!now) return { ok: true, detail: { polling: false } };
      return { ok: now.ok, detail: { polling: true, failing: now.failing, alarms: now.alarms } };
    },
  };
}

/** Within budget: the limiter's queue is not longer than a minute's budget. */
export function budgetReadiness(limiter: Pick<RateLimiter, 'stats'>): ReadinessCheck {
  return {
    name: 'budget',
    check: () => {
      const stats = limiter.stats();
      return { ok: stats.queued < stats.maxPerMinute, detail: stats };
    },
  };
}
