/**
 * Wiring of what the node shows of itself and of the day: the metric sources and /metrics, health and
 * readiness, the ops summary, the REST race views with the recent events, and the board.
 */
import type { FastifyInstance } from 'fastify';
import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { registerDeliveryMetrics } from '../delivery/core/metrics.js';
import { redactValue } from '../delivery/core/redact.js';
import type { UpstreamKind } from '../embedded/upstream.js';
import { registerBoard } from '../http/board.js';
import {
  budgetReadiness,
  discoveryReadiness,
  registerHealthRoutes,
  upstreamReadiness,
} from '../http/health.js';
import { bindMetricSources } from '../http/metric-sources.js';
import { type Metrics, registerMetricsRoute } from '../http/metrics.js';
import { opsSummary } from '../http/ops-summary.js';
import { processUsage } from '../http/process-usage.js';
import { registerRaceRoutes } from '../http/race-routes.js';
import { createRecentEvents } from '../http/recent-events.js';
import type { RateLimiter } from '../upstream/rate-limiter.js';
import type { RaceView } from '../watch/fetch/poller.js';
import type { PollingRole } from '../watch/polling-role.js';
import { freshnessSettings } from './polling.js';
import type { Surfaces } from './surfaces.js';

export async function registerViews(
  app: FastifyInstance,
  deps: {
    config: Config;
    backend: Backend;
    upstream: UpstreamKind;
    /** Where the store keeps its files, when it does (the process usage reports the disk there). */
    dataDir: string | undefined;
    clock: Clock;
    wallClock: Clock;
    limiter: RateLimiter;
    role: PollingRole;
    view: () => RaceView;
    surfaces: Surfaces;
    metrics: Metrics;
    /** Subscribers per race over every node. */
    subscribers: () => ReadonlyMap<string, number>;
  },
): Promise<void> {
  const { config, backend, clock, wallClock, limiter, role, view, metrics } = deps;
  const { hub, gateway, sse, webhooks, authFailures } = deps.surfaces;
  const { log, bus } = backend;
  const cluster = backend.distributed ? backend.status : undefined;
  const discovery = () => role.poller()?.discovery();
  bindMetricSources(metrics, {
    bus,
    clock,
    budget: () => limiter.stats(),
    view,
    outboxDepth: async () => (await webhooks.stats()).pending,
    cluster,
    discovery,
    wall: wallClock,
  });
  const readiness = () => [
    upstreamReadiness(view, clock, config.DISCOVERY_INTERVAL_MS),
    discoveryReadiness(discovery),
    budgetReadiness(limiter),
    ...backend.readiness(),
  ];
  registerHealthRoutes(app, readiness, wallClock);
  registerDeliveryMetrics(metrics.registry, hub);
  const metricsAuth = config.METRICS_TOKEN ? { token: config.METRICS_TOKEN, authFailures } : undefined;
  registerMetricsRoute(app, metrics, metricsAuth);
  const ops = opsSummary({
    clock,
    wall: wallClock,
    limiter,
    view,
    subscribers: deps.subscribers,
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
    freshness: freshnessSettings(config),
    ws: () => ({ ...gateway.stats(), subscribers: hub.subscriberCounts('ws') }),
    sse: () => ({ ...sse.stats(), subscribers: hub.subscriberCounts('sse') }),
    webhooks,
    usage: processUsage(deps.dataDir),
    cluster,
    discovery,
    spent: () => role.poller()?.spent(),
  });
  const recent = createRecentEvents();
  bus.subscribe((entries) => recent.add(entries));
  registerRaceRoutes(app, { races: view, log, redact: redactValue, ops, upstream: deps.upstream, recent });
  await registerBoard(app);
}
