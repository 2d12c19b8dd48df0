/**
 * The composition root, wiring only: config -> upstream (real API, replay or embedded simulator) and its clock
 * -> backend (event log, bus, outbox, leadership, request window for STORE's driver) -> polling -> delivery ->
 * HTTP.
 * `main.ts` calls it and handles signals; tests call it in-process.
 */
import type { FastifyInstance } from 'fastify';
import { type Backend, backends } from './backend/index.js';
import { type Clock, systemClock } from './clock.js';
import { freshnessOf } from './cluster/cluster-state.js';
import { inOrder } from './cluster/leadership.js';
import { createRetention, retentionMetrics } from './cluster/retention.js';
import { nodeRaceView } from './cluster/shared-race-view.js';
import { type Config, parseApiKeys } from './config.js';
import { DeliveryHub } from './delivery/core/hub.js';
import { registerDeliveryMetrics } from './delivery/core/metrics.js';
import { createRaceCatalog } from './delivery/core/race-catalog.js';
import { redactValue } from './delivery/core/redact.js';
import { registerSseEndpoint } from './delivery/sse/endpoint.js';
import { registerWebhooks } from './delivery/webhooks/index.js';
import { requireSecretsOpen } from './delivery/webhooks/secret-codec.js';
import { registerWebSocketGateway } from './delivery/ws/gateway.js';
import { startUpstream, type UpstreamKind } from './embedded/upstream.js';
import { buildApp } from './http/app.js';
import { createAuthFailures } from './http/auth-failures.js';
import { registerBoard } from './http/board.js';
import {
  budgetReadiness,
  discoveryReadiness,
  registerHealthRoutes,
  upstreamReadiness,
} from './http/health.js';
import { bindMetricSources } from './http/metric-sources.js';
import { countDroppedRows, createMetrics, registerMetricsRoute } from './http/metrics.js';
import { opsSummary } from './http/ops-summary.js';
import { processUsage } from './http/process-usage.js';
import { registerRaceRoutes } from './http/race-routes.js';
import { createRecentEvents } from './http/recent-events.js';
import { createLogger, type Logger } from './logger.js';
import { startRecording } from './replay/index.js';
import type { Simulator } from './simulator/index.js';
import { createRacingClient, warnIfUnidentified } from './upstream/client.js';
import { createRateLimiter } from './upstream/rate-limiter.js';
import { marketEventOptions } from './watch/market-data.js';
import { createPollingRole } from './watch/polling-role.js';

export interface Racewire {
  app: FastifyInstance;
  /** http://host:port when listening, else ''. */
  url: string;
  /** What racewire polls: the racing API, a replayed recording or the embedded simulator. */
  upstream: UpstreamKind;
  simulator?: Simulator;
  /** Race time: the race model and the scheduler (faster than real time beside the simulator). */
  clock: Clock;
  /** Wall time: everything a person or a peer sees (limits, heartbeats, timeouts, webhooks). */
  wallClock: Clock;
  /** The ports this node runs on (STORE's driver). */
  backend: Backend;
  stop(): Promise<void>;
}

export async function startRacewire(opts: {
  config: Config;
  logger?: Logger;
  listen?: boolean;
  /** Builds the race clock of the embedded upstream from its first instant (tests pass a manual clock). */
  clockFrom?: (origin: number) => Clock & { speed?: number };
  /** The wall clock (tests pass a manual one). @default systemClock */
  wallClock?: Clock;
}): Promise<Racewire> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  // The racing API, a replayed recording or the embedded simulator, and the race clock it runs on.
  const upstream = await startUpstream({ config, logger, clockFrom: opts.clockFrom });
  const { clock, simulator } = upstream;
  const wallClock = opts.wallClock ?? systemClock;
  if (upstream.kind !== 'racing API' && config.STORE === 'redis') {
    logger.warn(
      'STORE=redis with the embedded simulator: each node simulates its own day; point every node of a deployment at one upstream (RACING_API_URL)',
    );
  }

  let delivery: DeliveryHub | undefined;
  // WebSocket and SSE subscribers both raise their races' priority.
  const localSubscribers = () => delivery?.subscriberCounts() ?? new Map<string, number>();

  const backend = await backends[config.STORE]({
    config,
    clock,
    wallClock,
    logger: logger.child({ component: 'backend' }),
    localSubscribers,
    freshness: () => freshnessOf(role.poller()),
  });
  try {
    await requireSecretsOpen(backend.webhookStore.outbox, (err) =>
      logger.warn({ err: err.message }, 'webhook secrets not checked against SECRETS_KEY yet'),
    );
  } catch (err) {
    await backend.close();
    throw err;
  }
  const { log, bus } = backend;
  const cluster = backend.distributed ? backend.status : undefined;
  const metrics = createMetrics(backend.distributed ? backend.nodeId : undefined);

  const limiter = createRateLimiter({
    maxPerMinute: config.RACING_API_MAX_RPM,
    clock,
    sharedWindow: backend.requestWindow,
    logger: logger.child({ component: 'limiter' }),
  });
  const upstreamHeaders = {
    from: config.RACING_API_FROM,
    partner: config.RACING_API_PARTNER,
    partnerId: config.RACING_API_PARTNER_ID,
    apiKey:
      config.RACING_API_KEY_HEADER && config.RACING_API_KEY
        ? { header: config.RACING_API_KEY_HEADER, value: config.RACING_API_KEY }
        : undefined,
  };
  if (upstream.kind === 'racing API')
    warnIfUnidentified(logger.child({ component: 'upstream' }), upstreamHeaders);
  const recording = config.RECORD_DIR
    ? startRecording({
        dir: config.RECORD_DIR,
        baseUrl: upstream.baseUrl,
        clock,
        logger: logger.child({ component: 'recorder' }),
        onDrop: (reason, records) => metrics.recordingDropped.inc({ reason }, records),
      })
    : undefined;
  const client = createRacingClient({
    baseUrl: upstream.baseUrl,
    fetch: recording?.fetch,
    limiter,
    clock,
    wallClock,
    logger: logger.child({ component: 'upstream' }),
    timeoutMs: config.RACING_API_TIMEOUT_MS,
    onResponse: (meta) => metrics.upstreamRequests.inc(upstreamLabels(meta.path, meta.status)),
    onEchoOmitted: (members) => {
      for (const member of members) metrics.echoOmitted.inc({ member });
    },
    headers: upstreamHeaders,
  });

  const freshness = {
    lateScratchingMaxAgeMs: config.SCHEDULER_LATE_SCRATCHING_MAX_AGE_MS,
    earlyScratchingShare: config.SCHEDULER_EARLY_SCRATCHING_SHARE,
    earlyScratchingMaxAgeMs: config.SCHEDULER_EARLY_SCRATCHING_MAX_AGE_MS,
  };
  const role = createPollingRole({
    source: client,
    log,
    bus,
    clock,
    logger,
    subscribers: backend.subscribers,
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
    eventOptions: marketEventOptions({
      mode: config.MARKET_DATA,
      windowMinutes: config.MARKET_DATA_WINDOW_MIN,
      options: config.MARKET_DATA_OPTIONS,
    }),
    market: config.MARKET_THRESHOLDS,
    raceStates: { maxBytes: config.RACE_CACHE_BYTES },
    freshness,
    onOutcome: (outcome) => {
      if (outcome.kind === 'rejected') metrics.rejectedPayloads.inc({ code: outcome.code ?? 'unknown' });
      countDroppedRows(metrics, outcome.droppedRows);
    },
    onDroppedRows: (rows) => countDroppedRows(metrics, rows),
    onDiscoveryAlarm: (alarm) => metrics.discoveryAlarms.inc({ code: alarm.code }),
  });
  const discovery = () => role.poller()?.discovery();
  const view = nodeRaceView(role.poller, backend.sharedView);

  const app = await buildApp({
    logger,
    corsOrigins: config.CORS_ORIGINS,
    rateLimits: { restPerMinute: config.RATE_LIMIT_REST, adminPerMinute: config.RATE_LIMIT_ADMIN },
  });
  const catalog = createRaceCatalog(view);
  // One count of failed credentials per address, admin tokens and API keys together, on the wall clock.
  const authFailures = createAuthFailures(
    { maxFailures: config.AUTH_MAX_FAILURES, windowMs: config.AUTH_FAILURE_WINDOW_MS },
    wallClock,
  );
  const auth = {
    allowAnonymous: config.ALLOW_ANONYMOUS,
    keys: parseApiKeys(config.API_KEYS),
    failures: authFailures,
  };
  // Subscribers' limits, heartbeats and timeouts run on the wall clock, whatever the race clock's speed.
  const hub = new DeliveryHub({
    log,
    bus,
    catalog,
    wall: wallClock,
    logger: logger.child({ component: 'delivery' }),
    auth,
  });
  delivery = hub;
  const gateway = await registerWebSocketGateway(app, { hub, logger: logger.child({ component: 'ws' }) });
  const sse = await registerSseEndpoint(app, { hub, logger: logger.child({ component: 'sse' }) });
  // Dispatching follows leadership, like polling: only the leader claims deliveries.
  const webhooks = await registerWebhooks(app, {
    store: backend.webhookStore,
    dispatch: false,
    bus,
    clock: wallClock,
    logger: logger.child({ component: 'webhooks' }),
    config: {
      adminToken: config.ADMIN_TOKEN,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE,
      retentionMs: config.WEBHOOK_RETENTION_HOURS * 3_600_000,
      authFailures,
    },
    onAttempt: (outcome, latencyMs) => {
      metrics.webhookDeliveries.inc({ outcome });
      metrics.webhookLatency.observe(latencyMs / 1000);
    },
    fence: () => backend.leadership.token(),
    onFenced: () => backend.leadership.fenced(),
  });

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
  registerHealthRoutes(
    app,
    () => [
      upstreamReadiness(view, clock, config.DISCOVERY_INTERVAL_MS),
      discoveryReadiness(discovery),
      budgetReadiness(limiter),
      ...backend.readiness(),
    ],
    wallClock,
  );
  registerDeliveryMetrics(metrics.registry, hub);
  registerMetricsRoute(
    app,
    metrics,
    config.METRICS_TOKEN ? { token: config.METRICS_TOKEN, authFailures } : undefined,
  );
  const ops = opsSummary({
    clock,
    wall: wallClock,
    limiter,
    view,
    subscribers: backend.subscribers,
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
    freshness,
    ws: () => ({ ...gateway.stats(), subscribers: hub.subscriberCounts('ws') }),
    sse: () => ({ ...sse.stats(), subscribers: hub.subscriberCounts('sse') }),
    webhooks,
    usage: processUsage(config.STORE === 'sqlite' ? config.DATA_DIR : undefined),
    cluster,
    discovery,
    spent: () => role.poller()?.spent(),
  });
  const recent = createRecentEvents();
  bus.subscribe((entries) => recent.add(entries));
  registerRaceRoutes(app, { races: view, log, redact: redactValue, ops, upstream: upstream.kind, recent });
  await registerBoard(app);

  let url = '';
  if (opts.listen !== false) {
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  // Only the leader polls and dispatches; on a loss, dispatching stops first (no claim after the lease).
  const dispatching = {
    start: () => webhooks.setDispatching(true),
    stop: () => webhooks.setDispatching(false),
  };
  // The leader also expires the event log: cutoffs in race time, runs every 10 wall minutes.
  const retention = createRetention({
    log,
    settings: config,
    raceClock: clock,
    wallClock,
    logger: logger.child({ component: 'retention' }),
    ...retentionMetrics(metrics.registry),
  });
  backend.leadership.lead(inOrder(role, dispatching, retention));
  logger.info(
    {
      url,
      upstream: upstream.kind,
      store: config.STORE,
      ...(backend.distributed ? { node: backend.nodeId } : {}),
    },
    'racewire started',
  );

  return {
    app,
    url,
    upstream: upstream.kind,
    simulator,
    clock,
    wallClock,
    backend,
    async stop() {
      // Stops polling and dispatching while leadership is still held, then gives it up.
      await backend.leadership.close();
      await gateway.close();
      await hub.close();
      await webhooks.close();
      await app.close();
      await backend.close();
      await recording?.close();
      await upstream.close();
    },
  };
}

export { demoDay } from './embedded/upstream.js';

/** Metric labels of an upstream response: the operation (not the id, to keep cardinality low) and status. */
export function upstreamLabels(
  path: string,
  status: number | undefined,
): { operation: string; outcome: string } {
  const [, resource = 'unknown', id] = path.split('/');
  const operation = id ? resource.replace(/s$/, '') : resource;
  const outcome = status === undefined ? 'no_response' : status === 429 ? '429' : `${String(status)[0]}xx`;
  return { operation, outcome };
}
