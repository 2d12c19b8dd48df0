/**
 * The Redis backend (STORE=redis): one node of a deployment sharing one Redis. It builds the Redis clients
 * (from REDIS_URL) and hands them to the adapters: the shared event log and bus, the webhook outbox, the
 * poller lease behind the leadership port, the shared request window, the cluster state and a follower's
 * race view, and runs the loop that keeps the cluster state in sync. Nothing below builds its own client.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { createRedisBus } from '../bus/redis-bus.js';
import { createClusterState } from '../cluster/cluster-state.js';
import { leaseLeadership } from '../cluster/leadership.js';
import { createLease } from '../cluster/lease.js';
import { createSharedRaceView } from '../cluster/shared-race-view.js';
import { createRedisOutbox } from '../delivery/webhooks/redis/outbox.js';
import { secretCodec } from '../delivery/webhooks/secret-codec.js';
import { createRedisEventLog } from '../store/redis/redis-event-log.js';
import { createRedisRateWindow } from '../upstream/redis-rate-window.js';
import type { Backend, BackendFactory } from './ports.js';
import { watchGeneration } from './redis-generation.js';
import { requirePersistence } from './redis-persistence.js';
import { defaultNodeId } from './single-node.js';
import { watchWrites } from './write-health.js';

/** Fail fast rather than queue for ever: a caller learns within a couple of seconds that Redis is away. */
const CLIENT_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: 2_000,
  retryStrategy: (times) => Math.min(times * 200, 2_000),
};
const VIEW_REFRESH_EVERY = 5; // syncs

export const redisBackend: BackendFactory = async (opts): Promise<Backend> => {
  const { config, clock, wallClock, logger } = opts;
  const prefix = config.REDIS_PREFIX;
  const nodeId = config.NODE_ID ?? defaultNodeId();
  if (!config.REDIS_URL) throw new Error('STORE=redis needs REDIS_URL');
  const redis = new Redis(config.REDIS_URL, CLIENT_OPTIONS);
  const sub = new Redis(config.REDIS_URL, { ...CLIENT_OPTIONS, commandTimeout: undefined });
  let up = false;
  for (const [name, client] of [
    ['main', redis],
    ['subscriber', sub],
  ] as const) {
    // ioredis reconnects by itself; say so once per outage, not once per retry, and never log the URL.
    client.on('error', (err: Error) => {
      if (client.status !== 'reconnecting' || up)
        logger.warn({ client: name, err: err.message }, 'redis error');
    });
  }

  try {
    await requirePersistence(redis, config.REDIS_ALLOW_VOLATILE, logger);
  } catch (err) {
    redis.disconnect();
    sub.disconnect();
    throw err;
  }
  const generation = watchGeneration({ redis, key: `${prefix}generation`, wall: wallClock, logger });

  // One key is the lease's token counter and the fence mark the log and the outbox check (see lease.ts).
  const lease = createLease({
    redis,
    key: `${prefix}poller-lease`,
    tokenKey: `${prefix}fence`,
    nodeId,
    ttlMs: config.LEASE_TTL_MS,
    unsafeTrustMs: config.LEASE_UNSAFE_TRUST_MS,
    clock,
    onError: (err) => logger.debug({ err }, 'lease renew failed'),
  });
  const leadership = leaseLeadership(lease, logger, nodeId);
  const writes = watchWrites({
    log: createRedisEventLog({
      redis,
      prefix,
      window: config.EVENT_LOG_WINDOW,
      fence: () => lease.token(),
      fenceKey: lease.tokenKey,
      onFenced: () => leadership.fenced(),
    }),
    probe: async () => void (await redis.set(`${prefix}write-probe`, String(wallClock.now()))),
    clock: wallClock,
    logger,
  });
  const { log } = writes;
  const bus = createRedisBus({
    pub: redis,
    sub,
    nodeId,
    channel: `${prefix}entries`,
    onError: (err) => logger.warn({ err }, 'bus error'),
  });
  const state = createClusterState({ redis, prefix, nodeId, clock });
  const view = createSharedRaceView({
    log,
    bus,
    clock,
    freshness: state.freshness,
    onError: (err) => logger.warn({ err }, 'shared race view refresh failed'),
  });

  const stop = new AbortController();
  let syncs = 0;
  const syncLoop = (async () => {
    while (!stop.signal.aborted) {
      try {
        await state.sync({
          subscribers: opts.localSubscribers(),
          freshness: lease.isLeader() ? opts.freshness() : undefined,
        });
        const back = !up;
        if (back) logger.info({ node: nodeId }, 'redis reachable');
        up = true;
        if (back || ++syncs % VIEW_REFRESH_EVERY === 0) await view.refresh();
      } catch (err) {
        if (up) logger.warn({ err: (err as Error).message }, 'redis unreachable; serving what this node has');
        up = false;
      }
      await clock.sleep(state.intervalMs, stop.signal).catch(() => {});
    }
  })();
  // Other nodes' batches arrive only once subscribed, and a loss is seen only once the generation was read
  // (readiness reads it again every second); do not hold the start for an absent Redis.
  const firstLook = generation.check().then(
    () => {},
    (err: Error) => logger.warn({ err: err.message }, 'redis generation not read yet'),
  );
  await Promise.race([Promise.all([bus.ready, firstLook]), new Promise((r) => setTimeout(r, 2_000).unref())]);
  await view.refresh().catch((err) => logger.warn({ err }, 'no shared race view yet'));

  return {
    driver: 'redis',
    distributed: true,
    nodeId,
    log,
    bus,
    webhookStore: {
      outbox: createRedisOutbox({
        redis,
        prefix,
        now: () => wallClock.now(),
        fenceKey: lease.tokenKey,
        secrets: secretCodec(config.SECRETS_KEY),
      }),
      feed: log.feed,
      restored: () => generation.restored(),
    },
    leadership,
    requestWindow: writes.gate(
      createRedisRateWindow({
        redis,
        key: `${prefix}rate-window`,
        maxPerMinute: config.RACING_API_MAX_RPM,
        clock,
      }),
    ),
    subscribers() {
      // The totals include this node's counts as of the last sync; its own current ones are fresher.
      const merged = new Map(state.subscriberTotals());
      for (const [raceId, n] of opts.localSubscribers())
        merged.set(raceId, Math.max(n, merged.get(raceId) ?? 0));
      return merged;
    },
    sharedView: view,
    readiness: () => [
      writes.readiness,
      {
        name: 'redis',
        check: async () => {
          await redis.ping();
          return { ok: true, detail: { node: nodeId, leader: lease.isLeader(), nodes: state.nodes() } };
        },
      },
      {
        name: 'redis-data',
        check: async () => {
          const { id, lost } = await generation.check();
          if (!lost) return { ok: true, detail: { generation: id } };
          return {
            ok: false,
            detail: {
              ...lost,
              since: new Date(lost.since).toISOString(),
              fix: 'restore the webhook endpoints: PUT /v1/webhooks/endpoints:export (docs/operations.md)',
            },
          };
        },
      },
    ],
    status: () => {
      const { lost, losses } = generation.status();
      return { node: nodeId, leader: lease.isLeader(), redisUp: up, dataLost: lost, dataLosses: losses };
    },
    async close() {
      stop.abort();
      await syncLoop;
      await leadership.close();
      view.close();
      writes.close();
      await bus.close().catch(() => {});
      await log.close();
      redis.disconnect();
      sub.disconnect();
    },
  };
};
