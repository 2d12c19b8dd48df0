/**
 * The Redis backend (STORE=redis): one node of a deployment sharing one Redis. It builds the Redis clients
 * (from REDIS_URL) and hands them to the adapters: the shared event log and bus, the webhook outbox, the
 * poller lease behind the leadership port, the shared request window, the cluster state and a follower's
 * race view, and the cluster sync the composition root runs once the poller and the hub exist. Nothing below
 * builds its own client. The lease and the cluster state are on the wall clock: peers read what they write.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { createRedisBus, type RedisBus } from '../bus/redis-bus.js';
import { type ClusterState, createClusterState } from '../cluster/cluster-state.js';
import { createClusterSync, type Reachability } from '../cluster/cluster-sync.js';
import { leaseLeadership } from '../cluster/leadership.js';
import { createLease, type RedisLease } from '../cluster/lease.js';
import { createSharedRaceView, type SharedRaceView } from '../cluster/shared-race-view.js';
import { createRedisOutbox } from '../delivery/webhooks/redis/outbox.js';
import { secretCodec } from '../delivery/webhooks/secret-codec.js';
import type { Logger } from '../logger.js';
import { createRedisEventLog } from '../store/redis/redis-event-log.js';
import { createRedisRateWindow } from '../upstream/redis-rate-window.js';
import type { Backend, BackendFactory, BackendOptions } from './ports.js';
import { type GenerationWatch, watchGeneration } from './redis-generation.js';
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

export const redisBackend: BackendFactory = async (opts): Promise<Backend> => {
  const { config, clock, wallClock, logger } = opts;
  const prefix = config.REDIS_PREFIX;
  const nodeId = config.NODE_ID ?? defaultNodeId();
  const reach: Reachability = { up: false };
  const { redis, sub } = await connect(config, logger, reach);
  const generation = watchGeneration({ redis, key: `${prefix}generation`, wall: wallClock, logger });

  const { lease, leadership, writes } = leaseAndLog({ redis, nodeId, opts });
  const { log } = writes;
  const bus = createRedisBus({
    pub: redis,
    sub,
    nodeId,
    channel: `${prefix}entries`,
    onError: (err) => logger.warn({ err }, 'bus error'),
  });
  const state = createClusterState({ redis, prefix, nodeId, clock: wallClock });
  const view = createSharedRaceView({
    log,
    bus,
    clock,
    freshness: state.freshness,
    onError: (err) => logger.warn({ err }, 'shared race view refresh failed'),
  });

  await firstLook({ bus, generation, view, logger });

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
    subscribers: (local) => withOwn(state.subscriberTotals(), local),
    clusterSync: (sources) =>
      createClusterSync({
        ...sources,
        state,
        view,
        isLeader: () => lease.isLeader(),
        reach,
        wall: wallClock,
        logger,
        nodeId,
      }),
    sharedView: view,
    readiness: () => [writes.readiness, ...redisReadiness({ redis, nodeId, lease, state, generation })],
    status: () => {
      const { lost, losses } = generation.status();
      return {
        node: nodeId,
        leader: lease.isLeader(),
        redisUp: reach.up,
        dataLost: lost,
        dataLosses: losses,
      };
    },
    async close() {
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

/** The key of the poller lease (its value: `<nodeId>|<token>|<until>`, lease.ts). */
export const pollerLeaseKey = (prefix: string): string => `${prefix}poller-lease`;

/**
 * The poller lease and the leadership it gives, and the event log whose appends carry the lease's token (one
 * key is the token counter and the fence mark the log and the outbox check, see lease.ts), watched for failed
 * writes.
 */
function leaseAndLog(parts: { redis: Redis; nodeId: string; opts: BackendOptions }) {
  const { redis, nodeId } = parts;
  const { config, wallClock, logger } = parts.opts;
  const prefix = config.REDIS_PREFIX;
  const lease = createLease({
    redis,
    key: pollerLeaseKey(prefix),
    tokenKey: `${prefix}fence`,
    nodeId,
    ttlMs: config.LEASE_TTL_MS,
    trust: parts.opts.leaseTrust,
    clock: wallClock,
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
  return { lease, leadership, writes };
}

/** The main client and the subscriber, on a Redis that keeps its data (or one REDIS_ALLOW_VOLATILE accepts). */
async function connect(
  config: BackendOptions['config'],
  logger: Logger,
  reach: Reachability,
): Promise<{ redis: Redis; sub: Redis }> {
  if (!config.REDIS_URL) throw new Error('STORE=redis needs REDIS_URL');
  const redis = new Redis(config.REDIS_URL, CLIENT_OPTIONS);
  const sub = new Redis(config.REDIS_URL, { ...CLIENT_OPTIONS, commandTimeout: undefined });
  for (const [name, client] of [
    ['main', redis],
    ['subscriber', sub],
  ] as const) {
    // ioredis reconnects by itself; say so once per outage, not once per retry, and never log the URL.
    client.on('error', (err: Error) => {
      if (client.status !== 'reconnecting' || reach.up)
        logger.warn({ client: name, err: err.message }, 'redis error');
    });
  }
  try {
    await requirePersistence(redis, config.REDIS_ALLOW_VOLATILE, logger);
  } catch (err) {
    redis.disconnect();
    sub.disconnect();
    throw unreachable(err) ?? err;
  }
  return { redis, sub };
}

/** Redis did not answer the start's first command (the persistence check): a start-up failure of its own. */
export class RedisUnreachableError extends Error {
  readonly code = 'RW_REDIS_UNREACHABLE';
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = this.constructor.name;
  }
}

/** ioredis fails a command it could not send with MaxRetriesPerRequestError, or with the socket's error. */
function unreachable(err: unknown): RedisUnreachableError | undefined {
  const e = err as Error | undefined;
  const socket = /ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|Connection is closed/;
  if (e?.name === 'MaxRetriesPerRequestError' || socket.test(String(e?.message)))
    return new RedisUnreachableError(e!);
  return undefined;
}

/**
 * Other nodes' batches arrive only once subscribed, and a loss is seen only once the generation was read
 * (readiness reads it again every second); do not hold the start for an absent Redis.
 */
async function firstLook(parts: {
  bus: RedisBus;
  generation: GenerationWatch;
  view: SharedRaceView;
  logger: Logger;
}): Promise<void> {
  const { logger } = parts;
  const generation = parts.generation.check().then(
    () => {},
    (err: Error) => logger.warn({ err: err.message }, 'redis generation not read yet'),
  );
  const ready = Promise.all([parts.bus.ready, generation]);
  await Promise.race([ready, new Promise((r) => setTimeout(r, 2_000).unref())]);
  await parts.view.refresh().catch((err) => logger.warn({ err }, 'no shared race view yet'));
}

/** The totals include this node's counts as of the last sync; its own current ones are fresher. */
function withOwn(
  totals: ReadonlyMap<string, number>,
  own: ReadonlyMap<string, number>,
): ReadonlyMap<string, number> {
  const merged = new Map(totals);
  for (const [raceId, n] of own) merged.set(raceId, Math.max(n, merged.get(raceId) ?? 0));
  return merged;
}

/** Redis answers, and still holds the data this node found in it. */
function redisReadiness(parts: {
  redis: Redis;
  nodeId: string;
  lease: RedisLease;
  state: ClusterState;
  generation: GenerationWatch;
}): ReturnType<Backend['readiness']> {
  const { redis, nodeId, lease, state, generation } = parts;
  return [
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
  ];
}
