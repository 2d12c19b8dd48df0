/**
 * Lua scripts run by SHA (EVALSHA), loaded on first use and again after a NOSCRIPT (a restarted or flushed
 * server). The client is the caller's; nothing is defined on it.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface RedisScript {
  /** The SHA-1 of the source: what EVALSHA names it by (and what MONITOR shows of its calls). */
  readonly sha: string;
  run(redis: Redis, keys: string[], args: Array<string | number | Buffer>): Promise<unknown>;
}

export function defineScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    sha,
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return await redis.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
