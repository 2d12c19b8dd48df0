/**
 * The composition root: config -> clock -> upstream (real API or embedded simulator) -> store -> pipeline ->
 * poller -> delivery -> HTTP. `main.ts` calls it and handles signals; tests call it in-process.
 */
import type { FastifyInstance } from 'fastify';
import { type Bus, createMemoryBus } from './bus/bus.js';
import type { Clock } from './clock.js';
import { type ClusterNode, startClusterNode } from './cluster/cluster-node.js';
import { type Config, parseApiKeys } from './config.js';
import { registerSseEndpoint, type SseEndpoint } from './delivery/sse/endpoint.js';
import { registerWebhooks, type WebhookService } from './delivery/webhooks/index.js';
import { registerWebSocketGateway, type WebSocketGateway } from './delivery/ws/gateway.js';
import { redactValue } from './delivery/ws/redact.js';
import { startUpstream } from './embedded/upstream.js';
import type { LogEntry } from './events/envelope.js';
import { buildApp } from './http/app.js';
import { registerBoard } from './http/board.js';
import { registerHealthRoutes } from './http/health.js';
import { createMetrics, registerMetricsRoute } from './http/metrics.js';
import { type OpsSummary, registerRaceRoutes } from './http/race-routes.js';
import { createLogger, type Logger } from './logger.js';
import { startRecording } from './replay/index.js';
import type { Simulator } from './simulator/index.js';
import { createEventLog, type Database, databasePath, type EventLog, openDatabase } from './store/index.js';
import { createRacingClient, warnIfUnidentified } from './upstream/client.js';
import { createRateLimiter } from './upstream/rate-limiter.js';
import { pollPolicy } from './watch/poll-policy.js';
import type { RaceView } from './watch/poller.js';
import { createPollingRole } from './watch/polling-role.js';
import { createRaceCatalog } from './watch/race-catalog.js';

export interface Racewire {
  app: FastifyInstance;
  /** http://host:port when listening, else ''. */
  url: string;
  simulator?: Simulator;
  clock: Clock;
  /** STORE=redis: this node of the deployment. */
  cluster?: ClusterNode;
  stop(): Promise<void>;
}

export async function startRacewire(opts: {
  config: Config;
  logger?: Logger;
  listen?: boolean;
  /** Builds the race clock of the embedded upstream from its first instant (tests pass a manual clock). */
  clockFrom?: (origin: number) => Clock & { speed?: number };
}): Promise<Racewire> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const embedded = config.RACING_API_URL === undefined;
  const upstream = await startUpstream({ config, logger, clockFrom: opts.clockFrom });
  const { clock, simulator } = upstream;

  let gateway: WebSocketGateway | undefined;
  let sse: SseEndpoint | undefined;
  // WebSocket and SSE subscribers both raise their races' priority.
  const localSubscribers = () =>
    sse?.subscriberCounts(new Map(gateway?.subscriberCounts() ?? [])) ?? new Map<string, number>();

  // The store: one node (memory bus, SQLite or memory log) or a node of a Redis deployment.
  let cluster: ClusterNode | undefined;
  let db: Database | undefined;
  let log: EventLog;
  let bus: Bus;
  // The SQLite outbox writes its deliveries inside the append's transaction; it is created after the log,
  // so the hook is bound late.
  let enqueueDeliveries: (entries: LogEntry[]) => void = () => {};
  if (config.STORE === 'redis') {
    if (embedded) {
      logger.warn(
        'STORE=redis with the embedded simulator: each node simulates its own day; point every node of a deployment at one upstream (RACING_API_URL)',
      );
    }
    cluster = await startClusterNode({
      url: config.REDIS_URL!,
      prefix: config.REDIS_PREFIX,
      nodeId: config.NODE_ID,
      clock,
      logger: logger.child({ component: 'cluster' }),
      leaseTtlMs: config.LEASE_TTL_MS,
      window: config.EVENT_LOG_WINDOW,
      maxPerMinute: config.RACING_API_MAX_RPM,
      localSubscribers,
      freshness: () => freshness(role.poller()),
    });
    log = cluster.log;
    bus = cluster.bus;
  } else {
    bus = createMemoryBus((err) => logger.error({ err }, 'bus listener failed'));
    db = config.STORE === 'sqlite' ? openDatabase(databasePath(config.DATA_DIR)) : undefined;
    log = createEventLog(config.STORE, {
      window: config.EVENT_LOG_WINDOW,
      dataDir: config.DATA_DIR,
      db,
      onAppend: (entries) => enqueueDeliveries(entries),
    });
  }
  const metrics = createMetrics(cluster?.nodeId);

  const limiter = createRateLimiter({
    maxPerMinute: config.RACING_API_MAX_RPM,
    clock,
    sharedWindow: cluster?.rateWindow,
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
  if (!embedded) warnIfUnidentified(logger.child({ component: 'upstream' }), upstreamHeaders);
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
    logger: logger.child({ component: 'upstream' }),
    timeoutMs: config.RACING_API_TIMEOUT_MS,
    onResponse: (meta) => metrics.upstreamRequests.inc(upstreamLabels(meta.path, meta.status)),
    headers: upstreamHeaders,
  });

  const role = createPollingRole({
    source: client,
    log,
    bus,
    clock,
    logger,
    subscribers: () => cluster?.subscribers() ?? localSubscribers(),
    discoveryIntervalMs: config.DISCOVERY_INTERVAL_MS,
    onOutcome: (outcome) => {
      if (outcome.kind === 'rejected') metrics.rejectedPayloads.inc({ code: outcome.code ?? 'unknown' });
    },
  });
  // What this node shows of the day: its own poller once it has discovered, else the leader's, shared.
  const noRaces: RaceView = {
    races: () => new Map(),
    staleness: () => undefined,
    lastDiscoveryAt: () => undefined,
  };
  const view = (): RaceView => {
    const poller = role.poller();
    if (poller && (poller.lastDiscoveryAt() !== undefined || !cluster)) return poller;
    return cluster?.view ?? noRaces;
  };
  bus.subscribe((entries) => {
    for (const entry of entries) {
      if (entry.kind === 'event') metrics.events.inc({ type: entry.event.type });
      else if (entry.kind === 'patch')
        metrics.patchBytes.observe({ kind: 'patch' }, JSON.stringify(entry.ops).length);
      else metrics.patchBytes.observe({ kind: 'snapshot' }, JSON.stringify(entry.document).length);
    }
  });

  const app = await buildApp({ logger });
  const catalog = createRaceCatalog(view);
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
  // code, as durable as the memory event log (not at all). With Redis, only the leader dispatches.
  const webhookDb = cluster ? undefined : (db ?? openDatabase(':memory:'));
  const webhooks: WebhookService = await registerWebhooks(app, {
    store: cluster
      ? { kind: 'redis', redis: cluster.redis, prefix: config.REDIS_PREFIX }
      : { kind: 'sqlite', db: webhookDb! },
    dispatch: !cluster,
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

  const ops = async (): Promise<OpsSummary> => {
    const budget = limiter.stats();
    const races = view().races();
    // Settled means the scheduler will not fetch it again: the scheduler's own rule, not a second one.
    let settled = 0;
    for (const race of races.values()) if (!pollPolicy(race, clock.now(), 0)) settled++;
    const ws = gateway?.stats();
    const hooks = await webhooks.stats();
    return {
      time: clock.now(),
      clockSpeed: clock.speed ?? 1,
      budget: {
        maxPerMinute: config.RACING_API_MAX_RPM,
        used: budget.used,
        left: budget.left,
        queued: budget.queued,
      },
      races: { watched: races.size - settled, settled },
      ws: {
        connections: ws?.connections ?? 0,
        subscribers: [...(gateway?.subscriberCounts().values() ?? [])].reduce((a, b) => a + b, 0),
        slowDisconnects: ws?.slowDisconnects ?? 0,
      },
      webhooks: { pending: hooks.pending, failing: hooks.failing },
      ...(cluster
        ? { cluster: { node: cluster.nodeId, leader: cluster.isLeader(), redisUp: cluster.redisUp() } }
        : {}),
    };
  };
  metrics.sources.budget = () => limiter.stats();
  metrics.sources.staleness = function* () {
    const current = view();
    for (const race of current.races().values()) {
      const ms = current.staleness(race.raceId);
      if (ms !== undefined && race.finishedAt === undefined) yield { raceId: race.raceId, ms };
    }
  };
  metrics.sources.webSocketConnections = () => gateway?.stats().connections ?? 0;
  metrics.sources.outboxDepth = async () => (await webhooks.stats()).pending;
  if (cluster) {
    const node = cluster;
    metrics.sources.cluster = () => ({ leader: node.isLeader(), redisUp: node.redisUp() });
  }

  registerHealthRoutes(app, () => [
    {
      name: 'upstream',
      check: () => {
        const at = view().lastDiscoveryAt();
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
    ...(cluster?.readiness() ?? []),
  ]);
  registerMetricsRoute(app, metrics);
  registerRaceRoutes(app, { races: view, log, redact: redactValue, ops });
  await registerBoard(app);

  let url = '';
  if (opts.listen !== false) {
    url = await app.listen({ port: config.PORT, host: config.HOST });
  }
  if (cluster) {
    const node = cluster;
    await node.view.refresh().catch((err) => logger.warn({ err }, 'no shared race view yet'));
    // Only the lease holder polls and dispatches webhooks; a takeover recovers the dead leader's in-flight ones.
    node.lead({
      start: async () => {
        await role.start();
        await webhooks.setDispatching(true);
      },
      stop: async () => {
        await role.stop();
        await webhooks.setDispatching(false);
      },
    });
  } else {
    await role.start();
  }
  logger.info(
    {
      url,
      upstream: upstream.kind,
      store: config.STORE,
      ...(cluster ? { node: cluster.nodeId } : {}),
    },
    'racewire started',
  );

  return {
    app,
    url,
    simulator,
    clock,
    cluster,
    async stop() {
      // Polling stops while the lease is still held (appends in flight finish), then the lease is released so
      // another node takes over at once.
      await role.stop();
      await gateway?.close();
      await sse?.close();
      await webhooks.close();
      await app.close();
      if (cluster) await cluster.close();
      else await log.close();
      webhookDb?.close();
      await recording?.close();
      await upstream.close();
    },
  };
}

/** What the leader tells followers of its polling (src/cluster/cluster-state.ts). */
function freshness(poller: RaceView | undefined) {
  const lastGoodAt: Record<string, number> = {};
  for (const race of poller?.races().values() ?? []) {
    if (race.lastGoodAt !== undefined && race.finishedAt === undefined)
      lastGoodAt[race.raceId] = race.lastGoodAt;
  }
  return { discoveredAt: poller?.lastDiscoveryAt() ?? null, lastGoodAt };
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
