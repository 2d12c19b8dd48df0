/**
 * Keys of the Redis adapter, all under `<prefix>webhooks:` (the layout is described in scripts.ts, whose Lua
 * builds the same names), and how a script or a pipeline is run.
 */
import type { Redis } from 'ioredis';
import { RedisStoreError, redisCall } from '../../../redis/errors.js';
import type { RedisScript } from '../../../redis/script.js';

export function outboxKeys(prefix: string) {
  const w = `${prefix}webhooks:`;
  return {
    /** The prefix every script takes as ARGV[1]. */
    w,
    delivery: (id: number | string) => `${w}d:${id}`,
    attempts: (id: number | string) => `${w}d:${id}:attempts`,
    endpoint: (id: string) => `${w}ep:${id}`,
    endpointDeliveries: (id: string) => `${w}ep:${id}:deliveries`,
    endpoints: `${w}endpoints`,
    endpointsVersion: `${w}endpoints-version`,
    counts: `${w}counts`,
    due: `${w}due`,
    feedCursor: `${w}feed-cursor`,
    claimed: `${w}claimed`,
  };
}

export type OutboxKeys = ReturnType<typeof outboxKeys>;

/** Runs one outbox script; a Redis failure rejects with `redis_unavailable`. `declared`: the keys the
 * script touches, when it declares them all in KEYS (see scripts.ts); the others still build theirs. */
export type OutboxScriptRunner = (
  what: string,
  script: RedisScript,
  args: Array<string | number>,
  declared?: string[],
) => Promise<unknown>;

/** Runs an outbox script with the prefix as ARGV[1]. */
export const runScript = (
  redis: Redis,
  keys: OutboxKeys,
  what: string,
  script: RedisScript,
  args: Array<string | number>,
  declared: string[] = [],
): Promise<unknown> => redisCall(what, () => script.run(redis, declared, [keys.w, ...args]));

/** Runs a pipeline and answers its replies, rejecting with the first command error. */
export async function pipelineValues(
  what: string,
  pipeline: ReturnType<Redis['pipeline']>,
): Promise<unknown[]> {
  return redisCall(what, async () => {
    const out = await pipeline.exec();
    if (!out) throw new RedisStoreError('redis_unavailable', `${what}: pipeline aborted`);
    return out.map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  });
}
