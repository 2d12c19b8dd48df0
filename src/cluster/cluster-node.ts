/**
 * One node of a Redis deployment (STORE=redis): the Redis clients, the shared event log and bus, the poller
 * lease, the shared request window, the cluster state and a follower's race view, with the two loops that
 * keep them going. The composition root hands polling to `lead()`, which runs it only while this node holds
 * the lease. Adapters take their clients from here; nothing below builds its own.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis, type RedisOptions } from 'ioredis';
import { createRedisBus, type RedisBus } from '../bus/redis-bus.js';
import type { Clock } from '../clock.js';
import type { ReadinessCheck } from '../http/health.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../store/ports.js';
import { createRedisEventLog } from '../store/redis/redis-event-log.js';
import { createRedisRateWindow, type RedisRateWindow } from '../upstream/redis-rate-window.js';
import { createClusterState, type Freshness } from './cluster-state.js';
import { createLease } from './lease.js';
import { createSharedRaceView, type SharedRaceView } from './shared-race-view.js';

export interface ClusterNodeOptions {
  url: string;
  prefix: string;
  nodeId?: string;
  clock: Clock;
  logger: Logger;
  leaseTtlMs: number;
  /** Entries kept per stream. */
  window: number;
  maxPerMinute: number;
  /** This node's subscribers per race (WebSocket and SSE). */
  localSubscribers: () => ReadonlyMap<string, number>;
  /** The leader's freshness, published while it leads. */
  freshness: () => Omit<Freshness, 'leader'>;
}

export interface ClusterNode {
  readonly nodeId: string;
  /** For adapters that live elsewhere (the webhook outbox); the node owns and closes it. */
  readonly redis: Redis;
  readonly log: EventLog;
  readonly bus: RedisBus;
  readonly rateWindow: RedisRateWindow;
  readonly view: SharedRaceView;
  /** Subscribers per race over every node, this node's own counts as of now. */
  subscribers(): ReadonlyMap<string, number>;
  /** Runs `role.start` on each acquisition of the lease and `role.stop` on each loss. */
  lead(role: { start(): Promise<void>; stop(): Promise<void> }): void;
  isLeader(): boolean;
  redisUp(): boolean;
  readiness(): ReadinessCheck[];
  close(): Promise<void>;
}

/** Fail fast rather than queue for ever: a caller learns within a couple of seconds that Redis is away. */
const CLIENT_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  commandTimeout: 2_000,
  retryStrategy: (times) => Math.min(times * 200, 2_000),
};
const VIEW_REFRESH_EVERY = 5; // syncs

export const defaultNodeId = () => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

export async function startClusterNode(opts: ClusterNodeOptions): Promise<ClusterNode> {
  const { clock, logger, prefix } = opts;
  const nodeId = opts.nodeId ?? defaultNodeId();
  const redis = new Redis(opts.url, CLIENT_OPTIONS);
  const sub = new Redis(opts.url, { ...CLIENT_OPTIONS, commandTimeout: undefined });
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

  const lease = createLease({
    redis,
    key: `${prefix}poller-lease`,
    nodeId,
    ttlMs: opts.leaseTtlMs,
    clock,
    onError: (err) => logger.debug({ err }, 'lease renew failed'),
  });
  const log = createRedisEventLog({
    redis,
    prefix,
    window: opts.window,
    fence: () => lease.token(),
    fenceKey: lease.tokenKey,
  });
  const bus = createRedisBus({
    pub: redis,
    sub,
    nodeId,
    channel: `${prefix}entries`,
    onError: (err) => logger.warn({ err }, 'bus error'),
  });
  const rateWindow = createRedisRateWindow({
    redis,
    key: `${prefix}rate-window`,
    maxPerMinute: opts.maxPerMinute,
    clock,
  });
  const state = createClusterState({ redis, prefix, nodeId, clock });
  const view = createSharedRaceView({
    log,
    bus,
    clock,
    freshness: state.freshness,
    onError: (err) => logger.warn({ err }, 'shared race view refresh failed'),
  });

  const subscribers = () => {
    // The totals include this node's counts as of the last sync; its own current ones are fresher.
    const merged = new Map(state.subscriberTotals());
    for (const [raceId, n] of opts.localSubscribers())
      merged.set(raceId, Math.max(n, merged.get(raceId) ?? 0));
    return merged;
  };

  const stop = new AbortController();
  let syncs = 0;
  const syncLoop = (async () => {
    while (!stop.signal.aborted) {
      try {
        const leading = lease.isLeader();
        await state.sync({
          subscribers: opts.localSubscribers(),
          freshness: leading ? opts.freshness() : undefined,
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
  // Other nodes' batches arrive only once subscribed; do not hold the start for an absent Redis.
  await Promise.race([bus.ready, new Promise((r) => setTimeout(r, 2_000).unref())]);

  let stopLeading: (() => Promise<void>) | undefined;
  let transitions: Promise<void> = Promise.resolve();
  const transition = (what: string, step: () => Promise<void>) => {
    transitions = transitions.then(step).catch((err) => logger.error({ err }, `${what} failed`));
  };

  return {
    nodeId,
    redis,
    log,
    bus,
    rateWindow,
    view,
    subscribers,
    lead(role) {
      stopLeading = lease.run(
        (token) => {
          logger.info({ node: nodeId, token }, 'lease acquired: this node polls the racing API');
          transition('start polling', role.start);
        },
        () => {
          logger.warn({ node: nodeId }, 'lease lost: this node stops polling');
          transition('stop polling', role.stop);
        },
      );
    },
    isLeader: () => lease.isLeader(),
    redisUp: () => up,
    readiness: () => [
      {
        name: 'redis',
        check: async () => {
          await redis.ping();
          return { ok: true, detail: { node: nodeId, leader: lease.isLeader(), nodes: state.nodes() } };
        },
      },
    ],
    async close() {
      stop.abort();
      await syncLoop;
      await stopLeading?.();
      await transitions;
      view.close();
      await bus.close().catch(() => {});
      await log.close();
      redis.disconnect();
      sub.disconnect();
    },
  };
}
