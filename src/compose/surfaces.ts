/**
 * Wiring of what clients reach: the HTTP app, the credential-failure limiter every surface shares, the
 * delivery hub with its WebSocket gateway and SSE endpoint, and the webhooks (their API now, their dispatching
 * while this node leads). Limits, heartbeats, timeouts and webhook times run on the wall clock, whatever the
 * race clock's speed.
 */
import type { FastifyInstance } from 'fastify';
import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import { type Config, parseApiKeys } from '../config.js';
import { DeliveryHub } from '../delivery/core/hub.js';
import { createRaceCatalog } from '../delivery/core/race-catalog.js';
import { registerSseEndpoint, type SseEndpoint } from '../delivery/sse/endpoint.js';
import { registerWebhooks, type WebhookService } from '../delivery/webhooks/index.js';
import { registerWebSocketGateway, type WebSocketGateway } from '../delivery/ws/gateway.js';
import { buildApp } from '../http/app.js';
import { type AuthFailures, createAuthFailures } from '../http/auth-failures.js';
import type { Metrics } from '../http/metrics.js';
import type { Logger } from '../logger.js';
import type { RaceView } from '../watch/fetch/poller.js';

export interface Surfaces {
  app: FastifyInstance;
  authFailures: AuthFailures;
  hub: DeliveryHub;
  gateway: WebSocketGateway;
  sse: SseEndpoint;
  webhooks: WebhookService;
}

export async function wireSurfaces(deps: {
  config: Config;
  backend: Backend;
  /** The races this node shows (its poller's, or the leader's through the log). */
  view: () => RaceView;
  wallClock: Clock;
  logger: Logger;
  metrics: Metrics;
}): Promise<Surfaces> {
  const { config, backend, wallClock, logger } = deps;
  const app = await buildApp({
    logger,
    corsOrigins: config.CORS_ORIGINS,
    rateLimits: { restPerMinute: config.RATE_LIMIT_REST, adminPerMinute: config.RATE_LIMIT_ADMIN },
  });
  // One count of failed credentials per address, admin tokens and API keys together.
  const authFailures = createAuthFailures(
    { maxFailures: config.AUTH_MAX_FAILURES, windowMs: config.AUTH_FAILURE_WINDOW_MS },
    wallClock,
  );
  const hub = new DeliveryHub({
    log: backend.log,
    bus: backend.bus,
    catalog: createRaceCatalog(deps.view),
    wall: wallClock,
    logger: logger.child({ component: 'delivery' }),
    auth: {
      allowAnonymous: config.ALLOW_ANONYMOUS,
      keys: parseApiKeys(config.API_KEYS),
      failures: authFailures,
    },
  });
  const gateway = await registerWebSocketGateway(app, { hub, logger: logger.child({ component: 'ws' }) });
  const sse = await registerSseEndpoint(app, { hub, logger: logger.child({ component: 'sse' }) });
  const webhooks = await registerWebhooks(app, {
    store: backend.webhookStore,
    // Dispatching follows leadership, like polling: only the leader claims deliveries.
    dispatch: false,
    bus: backend.bus,
    clock: wallClock,
    logger: logger.child({ component: 'webhooks' }),
    config: {
      adminToken: config.ADMIN_TOKEN,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE,
      retentionMs: config.WEBHOOK_RETENTION_HOURS * 3_600_000,
      authFailures,
    },
    onAttempt: (outcome, latencyMs) => {
      deps.metrics.webhookDeliveries.inc({ outcome });
      deps.metrics.webhookLatency.observe(latencyMs / 1000);
    },
    fence: () => backend.leadership.token(),
    onFenced: () => backend.leadership.fenced(),
  });
  return { app, authFailures, hub, gateway, sse, webhooks };
}
