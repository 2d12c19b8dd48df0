/**
 * The composition root, wiring only: config -> upstream (real API, replay or embedded simulator) and its clock
 * -> backend (event log, bus, outbox, leadership, request window for STORE's driver) -> racing client ->
 * polling -> delivery -> HTTP -> cluster sync. `buildRacewire` wires and opens what the node needs (the store,
 * Redis, the upstream) and starts nothing of its own; `start()` runs the loops, leadership and listening.
 * `main.ts` (through `serve.ts`) calls it and handles signals; tests call it in-process.
 */
import type { FastifyInstance } from 'fastify';
import { type Backend, type BackendDriver, type BackendOptions, backends } from './backend/index.js';
import { type Clock, systemClock } from './clock.js';
import { freshnessOf } from './cluster/cluster-state.js';
import { inOrder, type Role } from './cluster/leadership.js';
import type { LeaseTrust } from './cluster/lease.js';
import { createRetention, retentionMetrics } from './cluster/retention.js';
import { nodeRaceView } from './cluster/shared-race-view.js';
import { wirePolling } from './compose/polling.js';
import { wireRacingClient } from './compose/racing-client.js';
import { wireSurfaces } from './compose/surfaces.js';
import { registerViews } from './compose/views.js';
import type { Config } from './config.js';
import type { DeliveryHub } from './delivery/core/hub.js';
import type { WebhookService } from './delivery/webhooks/index.js';
import { requireSecretsOpen } from './delivery/webhooks/secret-codec.js';
import { startUpstream, type UpstreamKind } from './embedded/upstream.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { createLogger, type Logger } from './logger.js';
import type { Simulator } from './simulator/index.js';
import { checkDataDir } from './startup-failure.js';

export interface Racewire {
  app: FastifyInstance;
  /** http://host:port once listening, else ''. */
  url: string;
  /** What racewire polls: the racing API, a replayed recording or the embedded simulator. */
  upstream: UpstreamKind;
  simulator?: Simulator;
  /** Race time: the race model and the scheduler (faster than real time beside the simulator). */
  clock: Clock;
  /** Wall time: everything a person or a peer sees (limits, heartbeats, timeouts, webhooks, the lease). */
  wallClock: Clock;
  /** The ports this node runs on (STORE's driver). */
  backend: Backend;
  /** Runs the node: the upstream's clock checkpoints, the cluster sync, leadership (polling, dispatching,
   * retention while leading) and, unless `listen` is false, the HTTP listener. Call once. */
  start(opts?: { listen?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface BuildOptions {
  config: Config;
  logger?: Logger;
  /** Builds the race clock of the embedded upstream from its first instant (tests pass a manual clock). */
  clockFrom?: (origin: number) => Clock & { speed?: number };
  /** The wall clock (tests pass a manual one). @default systemClock */
  wallClock?: Clock;
  /** How far a Redis node trusts its lease locally; only the nemesis loosens it (test/cluster/nemesis). */
  leaseTrust?: LeaseTrust;
}

/** Builds and starts: what `npm start` and most tests want. */
export async function startRacewire(opts: BuildOptions & { listen?: boolean }): Promise<Racewire> {
  const racewire = await buildRacewire(opts);
  await racewire.start({ listen: opts.listen });
  return racewire;
}

export async function buildRacewire(opts: BuildOptions): Promise<Racewire> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
  const wallClock = opts.wallClock ?? systemClock;
  const driver = backends[config.STORE];
  const dataDir = driver.dataDir(config);
  if (dataDir !== undefined) checkDataDir(dataDir);
  // The racing API, a replayed recording or the embedded simulator, and the race clock it runs on.
  const upstream = await startUpstream({ config, logger, clockFrom: opts.clockFrom, checkpointDir: dataDir });
  const { clock } = upstream;
  const backend = await openBackend(driver, {
    config,
    clock,
    wallClock,
    logger: logger.child({ component: 'backend' }),
    leaseTrust: opts.leaseTrust,
  });
  if (backend.distributed && upstream.kind !== 'racing API') {
    logger.warn(
      'STORE=redis with the embedded simulator: each node simulates its own day; point every node of a deployment at one upstream (RACING_API_URL)',
    );
  }
  const metrics = createMetrics(backend.distributed ? backend.nodeId : undefined);
  const { limiter, client, recording } = wireRacingClient({
    config,
    upstream,
    backend,
    wallClock,
    logger,
    metrics,
  });
  // The one loop of the wiring: the poller weighs races by their subscribers, and subscribers choose among the
  // poller's races (the hub's catalog reads them). The poller comes first; it reads the hub's counts, bound
  // below, only once it runs (start()).
  const hubCounts = boundLater<DeliveryHub>();
  const subscribers = () => backend.subscribers(hubCounts.get()?.subscriberCounts() ?? new Map());
  const role = wirePolling({ config, client, backend, clock, logger, metrics, subscribers });
  const view = nodeRaceView(role.poller, backend.sharedView);
  const surfaces = await wireSurfaces({ config, backend, view, wallClock, logger, metrics });
  const { app, hub, webhooks } = surfaces;
  hubCounts.bind(hub);
  const args = { config, backend, upstream: upstream.kind, dataDir, clock, wallClock, limiter, role, view };
  await registerViews(app, { ...args, surfaces, metrics, subscribers });
  const sync = backend.clusterSync({
    localSubscribers: () => hub.subscriberCounts(),
    freshness: () => freshnessOf(role.poller()),
  });
  const leading = leaderRoles({ config, role, webhooks, backend, clock, wallClock, logger, metrics });

  const racewire: Racewire = {
    app,
    url: '',
    upstream: upstream.kind,
    simulator: upstream.simulator,
    clock,
    wallClock,
    backend,
    async start(startOpts) {
      upstream.start();
      if (startOpts?.listen !== false)
        racewire.url = await app.listen({ port: config.PORT, host: config.HOST });
      sync.start();
      backend.leadership.lead(leading);
      const node = backend.distributed ? { node: backend.nodeId } : {};
      logger.info(
        { url: racewire.url, upstream: upstream.kind, store: config.STORE, ...node },
        'racewire started',
      );
    },
    async stop() {
      // Stops polling and dispatching while leadership is still held, then gives it up.
      await backend.leadership.close();
      await sync.stop();
      await surfaces.gateway.close();
      await hub.close();
      await webhooks.close();
      await app.close();
      await backend.close();
      await recording?.close();
      await upstream.close();
    },
  };
  return racewire;
}

/**
 * What runs only while this node leads, started in this order and stopped in the reverse: polling, webhook
 * dispatching (so on a loss dispatching stops first: no claim after the lease), and retention of the log.
 */
function leaderRoles(deps: {
  config: Config;
  role: Role;
  webhooks: WebhookService;
  backend: Backend;
  clock: Clock;
  wallClock: Clock;
  logger: Logger;
  metrics: Metrics;
}): Role {
  const { webhooks } = deps;
  const dispatching: Role = {
    start: () => webhooks.setDispatching(true),
    stop: () => webhooks.setDispatching(false),
  };
  // Cutoffs in race time, runs every 10 wall minutes.
  const retention = createRetention({
    log: deps.backend.log,
    settings: deps.config,
    raceClock: deps.clock,
    wallClock: deps.wallClock,
    logger: deps.logger.child({ component: 'retention' }),
    ...retentionMetrics(deps.metrics.registry),
  });
  return inOrder(deps.role, dispatching, retention);
}

/** STORE's backend, once its webhook secrets are known to open with SECRETS_KEY. */
async function openBackend(driver: BackendDriver, opts: BackendOptions): Promise<Backend> {
  const backend = await driver.open(opts);
  try {
    await requireSecretsOpen(backend.webhookStore.outbox, (err) =>
      opts.logger.warn({ err: err.message }, 'webhook secrets not checked against SECRETS_KEY yet'),
    );
  } catch (err) {
    await backend.close();
    throw err;
  }
  return backend;
}

/** A part built after the one that reads it: undefined until bound, once. */
function boundLater<T>(): { get(): T | undefined; bind(value: T): void } {
  let value: T | undefined;
  return {
    get: () => value,
    bind(v) {
      value = v;
    },
  };
}

export { upstreamLabels } from './compose/racing-client.js';
export { demoDay, embeddedSimulatorOptions } from './embedded/upstream.js';
