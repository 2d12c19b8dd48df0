/**
 * Retention of the Redis event log (`EventLog.expire`): settles and forgets the streams retention is due for,
 * found in the retained index (`P retained`, a sorted set of stream -> time of its last append, kept by the
 * append script) instead of the set of every stream ever written (`P streams`, which a forgotten stream never
 * leaves: its seq stays). A pass so reads the streams last written before the settle cutoff that still hold
 * entries or a document (about two race days of races), not every race since the deployment began; and it
 * runs their scripts BATCH at a time, not one round trip after another. A stream left holding nothing leaves
 * the index, unless appended in between (`lua/unindex.lua`).
 *
 * Streams written before the index existed are indexed once, from `P streams` and each head's `updatedAt`, by
 * the first pass that finds no `P retained:ready` (an upgraded deployment, or a Redis that lost its data).
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../redis/errors.js';
import type { ExpireResult, RetentionPolicy } from '../ports.js';
import { expireScript, unindexScript } from './append-script.js';
import type { RedisLogKeys } from './log-keys.js';

/** Streams whose scripts are in flight at once: one round trip a batch, and a bounded reply. */
export const RETENTION_BATCH = 500;

export async function expireRetained(
  redis: Redis,
  keys: RedisLogKeys,
  policy: RetentionPolicy,
): Promise<ExpireResult> {
  await indexOnce(redis, keys);
  const settledBefore = policy.settledBefore.getTime();
  const cutoffs = [settledBefore, policy.forgetBefore.getTime()];
  const flat = await redisCall('retained streams', () =>
    redis.zrangebyscore(keys.retained, '-inf', `(${settledBefore}`, 'WITHSCORES'),
  );
  // [stream, score as read]: the score goes back to unindex.lua, which removes a stream only if it is unchanged.
  const due = flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]!] as const] : []));
  const result = { settled: 0, forgotten: 0 };
  for (let i = 0; i < due.length; i += RETENTION_BATCH) {
    const batch = due.slice(i, i + RETENTION_BATCH);
    const outcomes = await Promise.all(
      batch.map(
        ([s]) =>
          redisCall(`expire ${s}`, () =>
            expireScript.run(
              redis,
              [keys.head(s), keys.document(s), keys.entries(s), keys.patches(s)],
              cutoffs,
            ),
          ) as Promise<[outcome: number, holds: number]>,
      ),
    );
    const empty: string[] = [];
    outcomes.forEach(([outcome, holds], j) => {
      if (outcome === 1) result.settled++;
      if (outcome === 2) result.forgotten++;
      if (holds === 0) empty.push(...batch[j]!);
    });
    if (empty.length > 0)
      await redisCall('unindex streams', () => unindexScript.run(redis, [keys.retained], empty));
  }
  return result;
}

/** Indexes the streams written before the retained index existed, once per Redis data set. */
async function indexOnce(redis: Redis, keys: RedisLogKeys): Promise<void> {
  if ((await redisCall('retained index', () => redis.exists(keys.retainedReady))) === 1) return;
  const streams = await redisCall('list streams', () => redis.smembers(keys.streams));
  for (let i = 0; i < streams.length; i += RETENTION_BATCH) {
    const batch = streams.slice(i, i + RETENTION_BATCH);
    const updated = await Promise.all(
      batch.map((s) => redisCall(`head of ${s}`, () => redis.hget(keys.head(s), 'updatedAt'))),
    );
    // A head without updatedAt is left alone until its next append (lua/expire.lua), which indexes it.
    const members = batch.flatMap((s, j) => (updated[j] ? [updated[j], s] : []));
    // NX: an append since the read above wrote the newer time; the older one must not replace it.
    if (members.length > 0)
      await redisCall('index streams', () => redis.zadd(keys.retained, 'NX', ...members));
  }
  await redisCall('retained index', () => redis.set(keys.retainedReady, '1'));
}
