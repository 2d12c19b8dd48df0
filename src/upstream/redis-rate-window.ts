/**
 * A sliding 60 s request window shared by every node through Redis: a sorted set of request start times and
 * one Lua script that drops starts older than the window and either admits (adds a start) or answers when
 * the oldest start leaves the window. Time comes from the injected clock and is passed into the script
 * (never Redis server time), so tests run on a manual clock; nodes' clocks must agree to within the margin
 * one is willing to lose (see docs/redis.md).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { redisCall } from '../redis/errors.js';
import { defineScript } from '../redis/script.js';
import type { Admission } from './rate-limiter.js';
import { RATE_WINDOW_MS, type RateWindow, WINDOW_MARGIN_MS, waitForSlot } from './rate-window.js';

export interface RedisRateWindowOptions {
  redis: Redis;
  /** The sorted set shared by every node spending the same budget. */
  key: string;
  maxPerMinute: number;
  clock: Clock;
  /**
   * Extra time a start is kept past 60 s before its slot is given again. The provider counts requests when
   * they arrive, and requests from different nodes take different times to get there: without a margin,
   * an early request that arrived late and a new one that arrived fast can land in one 60 s of the
   * provider's. Half of it covers the wait between asking and sending (`sendWithinMs`), half the way to the
   * provider. Costs margin/60 s of the budget. @default 2000
   */
  marginMs?: number;
}

export type RedisRateWindow = RateWindow;

// KEYS: 1 the set. ARGV: 1 now, 2 window ms, 3 max, 4 member. Returns {1} or {0, retryInMs}.
const admitScript = defineScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now - window))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
`);

export function createRedisRateWindow(opts: RedisRateWindowOptions): RedisRateWindow {
  const { redis, key, maxPerMinute, clock } = opts;
  const holdMs = RATE_WINDOW_MS + (opts.marginMs ?? WINDOW_MARGIN_MS);
  if (!Number.isSafeInteger(maxPerMinute) || maxPerMinute <= 0) {
    throw new RangeError(`maxPerMinute must be a positive integer, got ${maxPerMinute}`);
  }

  const tryAcquire = async (): Promise<Admission> => {
    const now = Math.floor(clock.now());
    const reply = (await redisCall('rate window', () =>
      admitScript.run(redis, [key], [now, holdMs, maxPerMinute, `${now}:${randomUUID()}`]),
    )) as number[];
    if (reply[0] === 1) return { admitted: true };
    return { admitted: false, retryInMs: Math.max(1, reply[1] ?? 1) };
  };

  return {
    tryAcquire,
    // A start is held `marginMs` past 60 s; half of it is for the way there, so it must be sent within the
    // other half of being recorded to stay covered.
    sendWithinMs: (holdMs - RATE_WINDOW_MS) / 2,
    acquire: (signal) => waitForSlot(tryAcquire, clock, signal),
    async stats() {
      const now = Math.floor(clock.now());
      const [used, oldest] = await redisCall('rate window stats', () =>
        Promise.all([
          redis.zcount(key, `(${now - holdMs}`, '+inf'),
          redis.zrangebyscore(key, `(${now - holdMs}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
        ]),
      );
      const nextFreeInMs =
        used < maxPerMinute || oldest[1] === undefined ? 0 : Number(oldest[1]) + holdMs - now;
      return { used, limit: maxPerMinute, nextFreeInMs };
    },
  };
}
