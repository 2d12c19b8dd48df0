/**
 * The composition root: config -> clock -> upstream (real API or embedded simulator) -> store -> pipeline ->
 * poller -> delivery -> HTTP. `main.ts` calls it and handles signals; tests call it in-process.
 */
import type { FastifyInstance } from 'fastify';
import { createMemoryBus } from './bus/bus.js';
import { type Clock, createScaledClock, systemClock } from './clock.js';
import { type Config, parseApiKeys } from './config.js';
import { registerSseEndpoint, type SseEndpoint } from './delivery/sse/endpoint.js';
import { registerWebhooks, type WebhookService } from './delivery/webhooks/index.js';
import { registerWebSocketGateway, type WebSocketGateway } from './delivery/ws/gateway.js';
import { redactValue } from './delivery/ws/redact.js';
import type { LogEntry } from './events/envelope.js';
import { buildApp } from './http/app.js';
import { registerBoard } from './http/board.js';
import { registerHealthRoutes } from './http/health.js';
import { createMetrics, registerMetricsRoute } from './http/metrics.js';
import { type OpsSummary, registerRaceRoutes } from './http/race-routes.js';
import { createLogger, type Logger } from './logger.js';
import { createSimulator, type Simulator } from './simulator/index.js';
import { createEventLog, type Database, databasePath, openDatabase } from './store/index.js';
import { createRacingClient } from './upstream/client.js';
import { createRateLimiter } from './upstream/rate-limiter.js';
import { createMeetingPipeline } from './watch/meeting-pipeline.js';
import { pollPolicy } from './watch/poll-policy.js';
import { createPoller } from './watch/poller.js';
import { createRaceCatalog } from './watch/race-catalog.js';
import { createRacePipeline } from './watch/race-pipeline.js';

export interface Racewire {
  app: FastifyInstance;
  /** http://host:port when listening, else ''. */
  url: string;
  simulator?: Simulator;
  clock: Clock;
  stop(): Promise<void>;
}

export async function startRacewire(opts: {
  config: Config;
  logger?: Logger;
  listen?: boolean;
}): Promise<Racewire> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const embedded = config.RACING_API_URL === undefined;
  const clock: Clock & { speed?: number } = embedded
    ? createScaledClock({ origin: Date.now(), speed: config.SIMULATOR_SPEED })
    : systemClock;

  let simulator: Simulator | undefined;
  let baseUrl = config.RACING_API_URL;
  if (embedded) {
    // The simulator's own limit sits above ours, as a real provider's would: racewire must never reach it.
    simulator = await createSimulator({
      seed: config.SIMULATOR_SEED,
      clock,
      day: demoDay(clock.now()),
      rateLimit: { perMinute: Math.ceil(config.RACING_API_MAX_RPM * 1.2) },
      logger: logger.child({ component: 'simulator' }),
    });
    baseUrl = await simulator.listen({ port: 0, host: '127.0.0.1' });
  }

  const metrics = createMetrics();
  const bus = createMemoryBus((err) => logger.error({ err }, 'bus listener failed'));
  const db: Database | undefined =
    config.STORE === 'sqlite' ? openDatabase(databasePath(config.DATA_DIR)) : undefined;
  // The webhook outbox writes its deliveries inside the append's transaction; it is created after the log,
  // so the hook is bound late.
  let enqueueDeliveries: (entries: LogEntry[]) => void = () => {};
  const log = createEventLog(config.STORE, {
    window: config.EVENT_LOG_WINDOW,
    dataDir: config.DATA_DIR,
    db,
    onAppend: (entries) => enqueueDeliveries(entries),
  });

  const limiter = createRateLimiter({ maxPerMinute: config.RACING_API_MAX_RPM, clock });
  const client = createRacingClient({
    baseUrl: baseUrl!,
    limiter,
    clock,
    logger: logger.child({ component: 'upstream' }),
    timeoutMs: config.RACING_API_TIMEOUT_MS,
    onResponse: (meta) => metrics.upstreamRequests.inc(upstreamLabels(meta.path, meta.status)),
    headers: {
      from: config.RACING_API_FROM,
      partner: config.RACING_API_PARTNER,
      partnerId: config.RACING_API_PARTNER_ID,
      apiKey:
        config.RACING_API_KEY_HEADER && config.RACING_API_KEY
          ? { header: config.RACING_API_KEY_HEADER, value: config.RACING_API_KEY }
          : undefined,
    },
  });

  const racePipeline = createRacePipeline({
    log,
    bus,
    clock,
    logger: logger.child({ component: 'pipeline' }),
  });
  const meetingPipeline = createMeetingPipeline({ log, bus, clock });
  let gateway: WebSocketGateway | undefined;
  let sse: SseEndpoint | undefined;
  const poller = createPoller({
    source: client,
    clock,
    logger: logger.child({ component: 'poller' }),
    onEvent: async (raceId, payload) => {
      const outcome = await racePipeline.process(raceId, payload);
      if (outcome.kind === 'rejected') metrics.rejectedPayloads.inc({ code: outcome.code ?? 'unknown' });
      return outcome;
    },
    onMeetings: (meetings) => meetingPipeline.process(meetings),
    // WebSocket and SSE subscribers both raise their races' priority.
    subscribers: () => sse?.subscriberCounts(new Map(gateway?.subscriberCounts() ?? [])) ?? new Map(),
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
  });
  bus.subscribe((entries) => {
    for (const entry of entries) {
      if (entry.kind === 'event') metrics.events.inc({ type: entry.event.type });
      else if (entry.kind === 'patch')
        metrics.patchBytes.observe({ kind: 'patch' }, JSON.stringify(entry.ops).length);
      else metrics.patchBytes.observe({ kind: 'snapshot' }, JSON.stringify(entry.document).length);
    }
  });

  const app = await buildApp({ logger });
  const catalog = createRaceCatalog(poller);
  const auth = { allowAnonymous: config.ALLOW_ANONYMOUS, keys: parseApiKeys(config.API_KEYS) };
  gateway = await registerWebSocketGateway(app, {
    log,
    bus,
    catalog,
    clock,
    logger: logger.child({ component: 'ws' }),
    auth,
  });
  sse = await registerSseEndpoint(app, {
    log,
    bus,
    catalog,
    clock,
    logger: logger.child({ component: 'sse' }),
    auth,
  });
  // With the memory store, webhook endpoints and deliveries live in an in-memory SQLite database: the same
  // code, as durable as the memory event log (not at all).
  const webhookDb = db ?? openDatabase(':memory:');
  const webhooks: WebhookService = await registerWebhooks(app, {
    db: webhookDb,
    bus,
    clock,
    logger: logger.child({ component: 'webhooks' }),
    config: { adminToken: config.ADMIN_TOKEN, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE },
    onAttempt: (outcome, latencyMs) => {
      metrics.webhookDeliveries.inc({ outcome });
      metrics.webhookLatency.observe(latencyMs / 1000);
    },
  });
  enqueueDeliveries = (entries) => webhooks.enqueueForEntries(entries);

  const ops = (): OpsSummary => {
    const budget = limiter.stats();
    // Settled means the scheduler will not fetch it again: the scheduler's own rule, not a second one.
    let settled = 0;
    for (const race of poller.races().values()) if (!pollPolicy(race, clock.now(), 0)) settled++;
    const ws = gateway?.stats();
    const hooks = webhooks.stats();
    return {
      time: clock.now(),
      clockSpeed: clock.speed ?? 1,
      budget: {
        maxPerMinute: config.RACING_API_MAX_RPM,
        used: budget.used,
        left: budget.left,
        queued: budget.queued,
      },
      races: { watched: poller.races().size - settled, settled },
      ws: {
        connections: ws?.connections ?? 0,
        subscribers: [...(gateway?.subscriberCounts().values() ?? [])].reduce((a, b) => a + b, 0),
        slowDisconnects: ws?.slowDisconnects ?? 0,
      },
      webhooks: { pending: hooks.pending, failing: hooks.failing },
    };
  };
  metrics.sources.budget = () => limiter.stats();
  metrics.sources.staleness = function* () {
    for (const race of poller.races().values()) {
      const ms = poller.staleness(race.raceId);
      if (ms !== undefined && race.finishedAt === undefined) yield { raceId: race.raceId, ms };
    }
  };
  metrics.sources.webSocketConnections = () => gateway?.stats().connections ?? 0;
  metrics.sources.outboxDepth = () => webhooks.stats().pending;

  registerHealthRoutes(app, () => [
    {
      name: 'upstream',
      check: () => {
        const at = poller.lastDiscoveryAt();
        const fresh = at !== undefined && clock.now() - at < config.DISCOVERY_INTERVAL_MS * 5 + 30_000;
        return {
          ok: fresh,
          detail: { lastDiscoveryAt: at === undefined ? null : new Date(at).toISOString() },
        };
      },
    },
    {
      name: 'store',
      check: async () => {
        await log.head('readiness-probe');
        return { ok: true };
      },
    },
    {
      name: 'budget',
      check: () => {
        const stats = limiter.stats();
        return { ok: stats.queued < config.RACING_API_MAX_RPM, detail: stats };
      },
    },
  ]);
  registerMetricsRoute(app, metrics);
  registerRaceRoutes(app, { poller, log, redact: redactValue, ops });
  await registerBoard(app);

  let url = '';
  if (opts.listen !== false) {
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  poller.start();
  logger.info(
    { url, upstream: embedded ? 'embedded simulator' : 'racing API', store: config.STORE },
    'racewire started',
  );

  return {
    app,
    url,
    simulator,
    clock,
    async stop() {
      await poller.stop();
      await gateway?.close();
      await sse?.close();
      await webhooks.close();
      await app.close();
      await log.close();
      webhookDb.close();
      await simulator?.close();
    },
  };
}

/**
 * The UTC day to lay the real timetable on so that `now` falls inside its racing: the timetable runs from
 * 14:15 UTC the day before to 17:02 UTC on the day, so from mid-afternoon UTC on, tomorrow's day is live.
 */
export function demoDay(now: number): string {
  const date = new Date(now);
  if (date.getUTCHours() >= 15) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

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
