/**
 * The one-time upgrade of the outbox's key layout written before 2026-11-27 (keys built in Lua from the
 * prefix: `W ep:<id>`, `W d:<n>`, `W chain:<ep>:<stream>`, shared `W due`/`claimed`/`finished`/`counts`, and
 * before that `W inflight`) to the Cluster-safe one of keys.ts. Every pending and in-flight delivery, its
 * body, attempts, claim and place in its chain is kept; ids, claim numbers and the feed cursor go on.
 *
 * Run by each node before its first outbox call (outbox.ts). Safe to repeat and to interrupt: an endpoint is
 * rewritten whole from its old keys (one MULTI on its own tag), and its old keys are deleted only after, so
 * a crash redoes it; the shared counters are copied before their old keys go. One node upgrades at a time
 * (a lock); another answers `redis_unavailable` until it is done, and its callers retry as for any outage.
 * The old layout exists only on a single Redis (Cluster could not run it), so reading it needs no care for
 * slots.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisStoreError, redisCall } from '../../../redis/errors.js';
import { type EndpointKeys, type OutboxKeys, pipelineValues } from './keys.js';

/** The shared keys of the old layout: while any exists, the upgrade is not finished. */
const OLD_SHARED = [
  'endpoints',
  'ids',
  'attempt-ids',
  'claims',
  'endpoints-version',
  'feed-cursor',
  'counts',
];
const OLD_INDEXES = ['due', 'claimed', 'inflight', 'finished', 'counts', 'endpoints'];
/** Counters and the cursor, moved with their values. */
const OLD_VALUES: Array<[string, 'ids' | 'attemptIds' | 'claims' | 'endpointsVersion' | 'feedCursor']> = [
  ['ids', 'ids'],
  ['attempt-ids', 'attemptIds'],
  ['claims', 'claims'],
  ['endpoints-version', 'endpointsVersion'],
  ['feed-cursor', 'feedCursor'],
];
const LOCK_MS = 120_000;

const BODY = 'body';
const OWED = new Set(['pending', 'in_flight']);
const link = (stream: string, id: string) => `${stream}\0${id.padStart(20, '0')}`;

/** Whether keys of the old layout are present. */
export async function oldLayoutPresent(redis: Redis, keys: OutboxKeys): Promise<boolean> {
  const n = await redisCall('old outbox layout', () =>
    redis.exists(...OLD_SHARED.map((k) => `${keys.w}${k}`)),
  );
  return n > 0;
}

/** Upgrades the old layout if there is one; answers how many endpoints it moved. */
export async function upgradeOutboxLayout(redis: Redis, keys: OutboxKeys): Promise<number> {
  if (!(await oldLayoutPresent(redis, keys))) return 0;
  const token = randomUUID();
  const locked = await redisCall('upgrade lock', () =>
    redis.set(keys.upgradeLock, token, 'PX', LOCK_MS, 'NX'),
  );
  if (locked !== 'OK')
    throw new RedisStoreError(
      'redis_unavailable',
      'webhook outbox: another node is upgrading the key layout',
    );
  try {
    const w = keys.w;
    const endpoints = await redisCall('old endpoints', () =>
      redis.zrange(`${w}endpoints`, 0, -1, 'WITHSCORES'),
    );
    for (let i = 0; i < endpoints.length; i += 2)
      await upgradeEndpoint(redis, keys, endpoints[i]!, endpoints[i + 1]!);
    for (const [old, now] of OLD_VALUES) {
      const value = await redisCall('old counter', () => redis.get(`${w}${old}`));
      if (value !== null) await redisCall('move counter', () => redis.set(keys[now], value));
      await redisCall('drop old counter', () => redis.del(`${w}${old}`));
    }
    // Plans made against the old layout's version are stale.
    await redisCall('endpoints version', () => redis.incr(keys.endpointsVersion));
    await redisCall('drop old indexes', () => redis.del(...OLD_INDEXES.map((k) => `${w}${k}`)));
    return endpoints.length / 2;
  } finally {
    // Only our own lock (a lock that expired under a slow upgrade may be another node's now); left to
    // expire when Redis is away.
    const holder = await redis.get(keys.upgradeLock).catch(() => null);
    if (holder === token) await redis.del(keys.upgradeLock).catch(() => undefined);
  }
}

interface OldDelivery {
  id: string;
  fields: Record<string, string>;
  attempts: string[];
  claimedAt: string | null;
}

async function readOldDeliveries(redis: Redis, w: string, ep: string): Promise<OldDelivery[]> {
  const ids = await redisCall('old deliveries', () => redis.zrange(`${w}ep:${ep}:deliveries`, 0, -1));
  const p = redis.pipeline();
  for (const id of ids)
    p.hgetall(`${w}d:${id}`).lrange(`${w}d:${id}:attempts`, 0, -1).zscore(`${w}claimed`, id);
  const replies = await pipelineValues('old deliveries', p);
  return ids.flatMap((id, i) => {
    const fields = replies[3 * i] as Record<string, string>;
    if (!fields.id) return [];
    return [
      {
        id,
        fields,
        attempts: replies[3 * i + 1] as string[],
        claimedAt: replies[3 * i + 2] as string | null,
      },
    ];
  });
}

/** The new keys of one endpoint, written whole (after deleting them) in one MULTI on its tag. */
function writeEndpoint(
  tx: ReturnType<Redis['multi']>,
  k: EndpointKeys,
  hash: Record<string, string>,
  ds: OldDelivery[],
) {
  tx.del(...Object.values(k));
  const counts: Record<string, number> = {};
  const heads = new Map<string, OldDelivery>();
  let inFlight = 0;
  for (const d of ds) {
    const { [BODY]: body, ...fields } = d.fields;
    const status = fields.status ?? 'pending';
    counts[status] = (counts[status] ?? 0) + 1;
    tx.hset(k.deliveries, d.id, JSON.stringify(fields))
      .hset(k.bodies, d.id, body ?? '')
      .zadd(k.byId, d.id, d.id);
    if (d.attempts.length > 0) tx.hset(k.attempts, d.id, d.attempts.join('\n'));
    if (status === 'in_flight') {
      inFlight++;
      tx.zadd(k.claimed, d.claimedAt ?? fields.updated_at ?? '0', d.id);
    }
    if (status === 'delivered' || status === 'failed') tx.zadd(k.finished, fields.updated_at ?? '0', d.id);
    if (OWED.has(status)) {
      const stream = fields.stream ?? '';
      tx.zadd(k.chains, 0, link(stream, d.id));
      const head = heads.get(stream);
      if (!head || Number(d.id) < Number(head.id)) heads.set(stream, d);
    }
  }
  for (const head of heads.values())
    if (head.fields.status === 'pending') tx.zadd(k.due, head.fields.next_attempt_at ?? '0', head.id);
  for (const [status, n] of Object.entries(counts)) tx.hset(k.counts, status, n);
  const lastId = ds.reduce((max, d) => Math.max(max, Number(d.id)), 0);
  tx.hset(k.endpoint, { ...hash, in_flight: inFlight, last_id: lastId });
}

async function upgradeEndpoint(redis: Redis, keys: OutboxKeys, ep: string, createdAt: string) {
  const w = keys.w;
  const old = `${w}ep:${ep}`;
  const k = keys.endpoint(ep);
  const [hash, originals, events, streams] = await pipelineValues(
    `old endpoint ${ep}`,
    redis
      .pipeline()
      .hgetall(old)
      .zrange(`${old}:originals`, 0, -1, 'WITHSCORES')
      .hgetall(`${old}:events`)
      .smembers(`${old}:streams`),
  );
  const { in_flight: _, ...fields } = hash as Record<string, string>;
  // Its old keys go in one DEL, so an endpoint without its old hash was moved whole by an earlier attempt
  // that stopped before marking it done: rewriting it now would empty it.
  if (!fields.id) return void (await redisCall('endpoint upgraded', () => redis.zrem(`${w}endpoints`, ep)));
  const ds = await readOldDeliveries(redis, w, ep);
  const tx = redis.multi();
  writeEndpoint(tx, k, fields, ds);
  const o = originals as string[];
  for (let i = 0; i < o.length; i += 2) tx.zadd(k.originals, o[i + 1]!, o[i]!);
  if (Object.keys(events as object).length > 0) tx.hset(k.events, events as Record<string, string>);
  await pipelineValues(`upgrade endpoint ${ep}`, tx);
  await redisCall('list endpoint', () => redis.zadd(keys.endpoints, createdAt, ep));
  if (ds.length > 0)
    await redisCall('index deliveries', () =>
      redis.hset(keys.deliveryEndpoints, Object.fromEntries(ds.map((d) => [d.id, ep]))),
    );
  const oldKeys = [
    old,
    ...['deliveries', 'originals', 'events', 'streams'].map((s) => `${old}:${s}`),
    ...(streams as string[]).map((s) => `${w}chain:${ep}:${s}`),
    ...ds.flatMap((d) => [`${w}d:${d.id}`, `${w}d:${d.id}:attempts`]),
  ];
  await redisCall('drop old endpoint keys', () => redis.del(...oldKeys));
  await redisCall('endpoint upgraded', () => redis.zrem(`${w}endpoints`, ep));
}
