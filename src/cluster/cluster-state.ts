/**
 * What the nodes of a Redis deployment tell each other besides log entries: each node's subscriber counts
 * per race (the leader's scheduler weighs races by subscribers on every node, not just its own), and the
 * leader's freshness (when each race last had a usable payload, when discovery last ran), which followers
 * show in their race lists, heartbeats and readiness. Both are JSON values with a time-to-live, so a dead
 * node's counts and a dead leader's freshness fade on their own.
 *
 * The days the leader listed (every race id of about three days: 88 KB of the 122 KB a sync wrote at the real
 * budget) change only when a day is listed again, and only a node taking over reads them. So they have a key
 * of their own, written when they change (`daysVersion` names them) and kept alive otherwise, and a follower
 * reads them only when the version it holds is not the leader's. The leader keeps what it wrote rather than
 * reading it back: it wrote and read all 122 KB at every sync, about 1 ms of CPU on the node's thread each.
 *
 * Keys (prefix P): `P nodes` sorted set (node id -> last sync, clock ms), `P node:<id>` the node's counts,
 * `P freshness` the leader's view without its days, `P freshness:days` the days with their version.
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
    days: `${prefix}freshness:days`,
  };
  let totals: ReadonlyMap<string, number> = new Map();
  let fresh: Freshness | undefined;
  let live: string[] = [];
  /** The version of the days this node last wrote while leading, until their key is found gone. */
  let daysWritten: string | undefined;
  /** The leader's days as this node last read them (a follower). */
  let heldDays: { version: string; days: ListedDay[] } | undefined;

  async function readDays(version: string): Promise<ListedDay[]> {
    if (heldDays?.version !== version) {
      const json = await redisCall('cluster days read', () => redis.get(keys.days));
      heldDays = parseDays(json);
    }
    return heldDays?.days ?? [];
  }

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
      const leading = own.freshness;
      const daysVersion = leading ? versionOf(leading.days) : undefined;
      if (leading) {
        const { days, ...rest } = leading;
        write.set(keys.fresh, JSON.stringify({ leader: nodeId, ...rest, daysVersion }), 'PX', ttl);
        if (daysVersion === daysWritten) write.pexpire(keys.days, ttl);
        else write.set(keys.days, JSON.stringify({ version: daysVersion, days }), 'PX', ttl);
      }
      const written = await redisCall('cluster state write', () => write.exec());
      // A days key found gone (expired in a pause, Redis restarted) is written again at the next sync.
      // Not leading, it forgets what it wrote: another leader may write other days before it leads again.
      daysWritten = leading && written?.at(-1)?.[1] !== 0 ? daysVersion : undefined;
      const [ids, freshJson] = await redisCall('cluster state read', () =>
        Promise.all([
          redis.zrangebyscore(keys.nodes, now - ttl, '+inf'),
          leading ? null : redis.get(keys.fresh),
        ]),
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
      if (leading) {
        fresh = { leader: nodeId, ...leading };
        return;
      }
      const read = parseFreshness(freshJson);
      if (!read) fresh = undefined;
      else {
        const { daysVersion, days, ...rest } = read;
        fresh = { ...rest, days: days ?? (daysVersion === undefined ? [] : await readDays(daysVersion)) };
      }
    },
  };
}

/**
 * Names a set of listed days: a day's race ids change only with a complete listing, which moves its
 * `refreshedAt`, so the dates, the instants, the settled flags and the counts tell one set from another.
 */
function versionOf(days: readonly ListedDay[]): string {
  return days
    .map((d) => `${d.date}@${d.refreshedAt}:${d.listedSettled ? 1 : 0}:${d.raceIds.length}`)
    .join(',');
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

/**
 * The leader's freshness as written: with `daysVersion` and no days (this version), or with its days inline (a
 * node of the version before, during a rolling upgrade).
 */
function parseFreshness(
  json: string | null,
): (Omit<Freshness, 'days'> & { days?: ListedDay[]; daysVersion?: string }) | undefined {
  const value = safeParse(json) as (Partial<Freshness> & { daysVersion?: unknown }) | undefined;
  if (typeof value !== 'object' || value === null || typeof value.leader !== 'string') return undefined;
  const discoveredAt = Number.isFinite(value.discoveredAt) ? (value.discoveredAt as number) : null;
  const base = { leader: value.leader, discoveredAt, lastGoodAt: numberRecord(value.lastGoodAt) };
  if (typeof value.daysVersion === 'string') return { ...base, daysVersion: value.daysVersion };
  return { ...base, days: listedDays(value.days) };
}

function parseDays(json: string | null): { version: string; days: ListedDay[] } | undefined {
  const value = safeParse(json) as { version?: unknown; days?: unknown } | undefined;
  if (typeof value !== 'object' || value === null || typeof value.version !== 'string') return undefined;
  return { version: value.version, days: listedDays(value.days) };
}

const listedDays = (value: unknown): ListedDay[] => (Array.isArray(value) ? value.filter(isListedDay) : []);

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
