/**
 * Per-client request limits on the REST and admin APIs (@fastify/rate-limit, in memory on each node, on the
 * wall clock): `RATE_LIMIT_REST` a minute for `/v1/...` reads, `RATE_LIMIT_ADMIN` for `/v1/webhooks`. Health,
 * metrics, the board's files, the API docs and the streaming endpoints (WebSocket, SSE: limited by their own
 * connection rules) are not counted. The client is the socket's address (`trustProxy` is off).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface RateLimits {
  restPerMinute: number;
  adminPerMinute: number;
}

type Group = 'rest' | 'admin' | undefined;

/** Which budget a request spends, by its route (not its raw URL). */
export function rateGroup(route: string | undefined): Group {
  if (!route?.startsWith('/v1/') || route === '/v1/sse') return undefined;
  return route.startsWith('/v1/webhooks') ? 'admin' : 'rest';
}

const groupOf = (req: FastifyRequest) => rateGroup(req.routeOptions.url);

export async function installRateLimits(app: FastifyInstance, limits: RateLimits): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    timeWindow: 60_000,
    cache: 10_000,
    allowList: (req) => groupOf(req) === undefined,
    max: (req) => (groupOf(req) === 'admin' ? limits.adminPerMinute : limits.restPerMinute),
    keyGenerator: (req) => `${groupOf(req)}|${req.ip}`,
    // Thrown, so each scope's error handler answers it in the documented shape (`rate_limited`).
    errorResponseBuilder: (_req, ctx) =>
      Object.assign(new Error(`more than ${ctx.max} requests a minute; retry in ${ctx.after}`), {
        statusCode: 429,
      }),
  });
}
