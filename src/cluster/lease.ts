/**
 * The poller lease in Redis: one holder at a time, and a fencing token from INCR on every acquisition that
 * the event log and the webhook outbox check inside their scripts, so that a paused ex-leader cannot write
 * after another node took over. The token counter is also the fence mark (one key, `tokenKey`): a write
 * carrying a token above it raises it, so the next acquisition's token is above every token a write ever
 * carried, even after a Redis restart without persistence lost the counter.
 *
 * Expiry is on the wall clock (the holder's `until` is stored with it): the nodes read each other's `until`,
 * and only wall time means the same on every node (the race clock may run at x10 beside a simulator). Nodes'
 * clocks must agree (NTP), and fencing keeps writes safe when they do not. Tests drive hand-overs with a
 * manual clock. Locally a holder trusts its lease only until `ttl` after it sent the acquire or renew, which
 * is never later than the `until` it stored (lease-loop.ts, `LeaseTrust`).
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { redisCall } from '../redis/errors.js';
import { defineScript } from '../redis/script.js';
import { type Lease, type LeaseTrust, runLease } from './lease-loop.js';

export type { Lease, LeaseTrust } from './lease-loop.js';

export interface LeaseOptions {
  /** The caller's client. */
  redis: Redis;
  /** The lease key. */
  key: string;
  /** The token counter and fence mark, shared with the log and the outbox. @default `<key>:token` */
  tokenKey?: string;
  /** Unique per process (for example hostname:pid:random). */
  nodeId: string;
  ttlMs: number;
  /** The wall clock: peers compare the `until` it writes with their own. */
  clock: Clock;
  /** Reports a failed renew or acquire in run() (Redis unreachable); the loop keeps going. */
  onError?: (err: unknown) => void;
  /** How far the holder trusts its lease locally; only tests of the fence loosen it. @default leaseTrust */
  trust?: LeaseTrust;
}

export interface RedisLease extends Lease {
  /** Where the counter and fence mark live: pass it to the event log as `fenceKey`. */
  readonly tokenKey: string;
}

// Value `<nodeId>|<token>|<until>`. KEYS: 1 lease, 2 counter. ARGV: 1 nodeId, 2 now, 3 ttl.
// Answers the token when this node holds the lease now, false when another does.
const acquireScript = defineScript(`
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local current = redis.call('GET', KEYS[1])
if current then
  local a = string.find(current, '|', 1, true)
  local b = string.find(current, '|', a + 1, true)
  local holder, token, untilMs = string.sub(current, 1, a - 1), string.sub(current, a + 1, b - 1),
    tonumber(string.sub(current, b + 1))
  if holder == ARGV[1] then
    redis.call('SET', KEYS[1], holder .. '|' .. token .. '|' .. string.format('%d', now + ttl))
    return tonumber(token)
  end
  if untilMs > now then return false end
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token .. '|' .. string.format('%d', now + ttl))
return token
`);

// KEYS: 1 lease. ARGV: 1 `<nodeId>|<token>|`, 2 now + ttl. Extends the holding when it is still ours.
const renewScript = defineScript(`
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1] .. ARGV[2])
  return 1
end
return 0
`);

const releaseScript = defineScript(`
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, #ARGV[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

export function createLease(opts: LeaseOptions): RedisLease {
  const { redis, key, nodeId, ttlMs, clock } = opts;
  if (nodeId.includes('|')) throw new RangeError(`nodeId must not contain "|": ${nodeId}`);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer`);
  const tokenKey = opts.tokenKey ?? `${key}:token`;
  const now = () => Math.floor(clock.now());

  return {
    tokenKey,
    ...runLease({
      ttlMs,
      clock,
      onError: opts.onError,
      trust: opts.trust,
      acquire: async (at) => {
        const token = await redisCall('lease acquire', () =>
          acquireScript.run(redis, [key, tokenKey], [nodeId, at, ttlMs]),
        );
        return typeof token === 'number' ? token : undefined;
      },
      renew: async (token, at) =>
        (await redisCall('lease renew', () =>
          renewScript.run(redis, [key], [`${nodeId}|${token}|`, String(at + ttlMs)]),
        )) === 1,
      release: async (token) =>
        void (await redisCall('lease release', () =>
          releaseScript.run(redis, [key], [`${nodeId}|${token}|`]),
        )),
      now,
    }),
  };
}
