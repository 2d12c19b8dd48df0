/**
 * What the nodes of a Redis deployment tell each other besides log entries: each node's subscriber counts
 * per race (the leader's scheduler weighs races by subscribers on every node, not just its own), and the
 * leader's freshness (when each race last had a usable payload, when discovery last ran), which followers
 * show in their race lists, heartbeats and readiness. Both are small JSON values with a time-to-live, so a
 * dead node's counts and a dead leader's freshness fade on their own.
 *
 * Keys (prefix P): `P nodes` sorted set (node id -> last sync, clock ms), `P node:<id>` the node's counts,
 * `P freshness` the leader's view.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { redisCall } from '../redis/errors.js';
import type { RaceView } from '../watch/fetch/poller.js';
import type { ListedDay } from '../watch/schedule/discovery-windows.js';

export interface Freshness {
  leader: string;
  /** Clock ms of the leader's last successful discovery, or null before the first. */
  discoveredAt: number | null;
  /** Race id -> clock ms of its last usable payload. */
  lastGoodAt: Record<string, number>;
  /** The days the leader listed in full, and when: a new term starts with them (handed-over.ts). */
  days: ListedDay[];
}

export interface ClusterStateOptions {
  redis: Redis;
  prefix: string;
  nodeId: string;
  clock: Clock;
  /** How often `sync` runs; values live three times as long. @default 1000 */
  intervalMs?: number;
}

export interface ClusterState {
  /** Publishes this node's counts (and, from the leader, its freshness), then reads the others'. */
  sync(own: {
    subscribers: ReadonlyMap<string, number>;
    freshness?: Omit<Freshness, 'leader'>;
  }): Promise<void>;
  /** Subscribers per race summed over every live node, as of the last sync. */
  subscriberTotals(): ReadonlyMap<string, number>;
  /** The leader's freshness as of the last sync, or undefined when no leader published lately. */
  freshness(): Freshness | undefined;
  /** Live nodes as of the last sync. */
  nodes(): readonly string[];
  readonly intervalMs: number;
}

export function createClusterState(opts: ClusterStateOptions): ClusterState {
  const { redis, prefix, nodeId, clock } = opts;
  const intervalMs = opts.intervalMs ?? 1000;
  const ttl = intervalMs * 3;
  const keys = {
    nodes: `${prefix}nodes`,
    node: (id: string) => `${prefix}node:${id}`,
    fresh: `${prefix}freshness`,
  };
  let totals: ReadonlyMap<string, number> = new Map();
  let fresh: Freshness | undefined;
  let live: string[] = [];

  return {
    intervalMs,
    subscriberTotals: () => totals,
    freshness: () => fresh,
    nodes: () => live,
    async sync(own) {
      const now = clock.now();
      const write = redis
        .multi()
        .set(keys.node(nodeId), JSON.stringify(Object.fromEntries(own.subscribers)), 'PX', ttl)
        .zadd(keys.nodes, now, nodeId)
        .zremrangebyscore(keys.nodes, '-inf', now - ttl);
      if (own.freshness)
        write.set(keys.fresh, JSON.stringify({ leader: nodeId, ...own.freshness }), 'PX', ttl);
      await redisCall('cluster state write', () => write.exec());
      const [ids, freshJson] = await redisCall('cluster state read', () =>
        Promise.all([redis.zrangebyscore(keys.nodes, now - ttl, '+inf'), redis.get(keys.fresh)]),
      );
      const counts = ids.length
        ? await redisCall('cluster counts', () => redis.mget(ids.map(keys.node)))
        : [];
      const sum = new Map<string, number>();
      for (const json of counts) {
        for (const [raceId, n] of Object.entries(numberRecord(safeParse(json))))
          sum.set(raceId, (sum.get(raceId) ?? 0) + n);
      }
      totals = sum;
      live = ids;
      fresh = parseFreshness(freshJson);
    },
  };
}

/** What the leader tells followers of its polling: when discovery ran, and each live race's last good fetch. */
export function freshnessOf(poller: RaceView | undefined): Omit<Freshness, 'leader'> {
  const lastGoodAt: Record<string, number> = {};
  for (const race of poller?.races().values() ?? []) {
    if (race.lastGoodAt !== undefined && race.finishedAt === undefined)
      lastGoodAt[race.raceId] = race.lastGoodAt;
  }
  return {
    discoveredAt: poller?.lastDiscoveryAt() ?? null,
    lastGoodAt,
    days: [...(poller?.listedDays() ?? [])],
  };
}

/** Another node wrote these: check their shape rather than trust it. */
function numberRecord(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null) return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) if (Number.isFinite(v)) out[k] = v as number;
  return out;
}

function parseFreshness(json: string | null): Freshness | undefined {
  const value = safeParse(json) as Partial<Freshness> | undefined;
  if (typeof value !== 'object' || value === null || typeof value.leader !== 'string') return undefined;
  const discoveredAt = Number.isFinite(value.discoveredAt) ? (value.discoveredAt as number) : null;
  return {
    leader: value.leader,
    discoveredAt,
    lastGoodAt: numberRecord(value.lastGoodAt),
    days: Array.isArray(value.days) ? value.days.filter(isListedDay) : [],
  };
}

function isListedDay(value: unknown): value is ListedDay {
  const day = value as Partial<ListedDay> | null;
  return (
    typeof day === 'object' &&
    day !== null &&
    typeof day.date === 'string' &&
    Number.isFinite(day.refreshedAt) &&
    typeof day.listedSettled === 'boolean' &&
    Array.isArray(day.raceIds) &&
    day.raceIds.every((id) => typeof id === 'string')
  );
}

function safeParse(json: string | null): unknown {
  if (json === null) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
