/**
 * A leader lease in Redis: one holder at a time (SET NX PX, renewed and released only by a compare in Lua),
 * and a fencing token from INCR on every acquisition, strictly increasing, that the event log checks inside
 * its append script so that a paused ex-leader cannot write after another node took over.
 *
 * Redis expires the key on its own clock; locally a holder trusts its lease only until `ttl` after it sent
 * the acquire or renew (measured on the injected clock), so it gives up a little before Redis does.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { redisCall } from '../store/redis/errors.js';
import { defineScript } from '../store/redis/script.js';

export interface LeaseOptions {
  /** The caller's client. */
  redis: Redis;
  /** The lease key; the token counter lives at `<key>:token`. */
  key: string;
  /** Unique per process (for example hostname:pid:random). */
  nodeId: string;
  ttlMs: number;
  clock: Clock;
  /** Reports a failed renew or acquire in run() (Redis unreachable); the loop keeps going. */
  onError?: (err: unknown) => void;
}

export interface Lease {
  /** Where the fencing counter lives: pass it to the event log as `fenceKey`. */
  readonly tokenKey: string;
  /** Takes the lease when free (or renews it when already ours). True when this node holds it now. */
  acquire(): Promise<boolean>;
  /** Extends the lease when still ours. False (and no longer leader) when it was lost. */
  renew(): Promise<boolean>;
  /** Gives the lease up when still ours, so another node can take it at once. */
  release(): Promise<void>;
  isLeader(): boolean;
  /** The fencing token of the current holding, or undefined when not leader. */
  token(): number | undefined;
  /**
   * Acquires when free and renews every ttl/3 until stopped. Calls `onAcquired(token)` on each acquisition
   * and `onLost()` when a holding ends other than by stop. Returns a stop function that releases the lease.
   */
  run(onAcquired: (token: number) => void, onLost: () => void): () => Promise<void>;
}

// Value `<nodeId>|<token>`: the token is issued in the same script as the SET, so no two holders share one.
const acquireScript = defineScript(`
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, '|', 1, true)
  if sep and string.sub(current, 1, sep - 1) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(current, sep + 1))
  end
  return false
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token
`);

const renewScript = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

const releaseScript = defineScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

export function createLease(opts: LeaseOptions): Lease {
  const { redis, key, nodeId, ttlMs, clock } = opts;
  if (nodeId.includes('|')) throw new RangeError(`nodeId must not contain "|": ${nodeId}`);
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer`);
  const tokenKey = `${key}:token`;
  let held: { token: number; validUntil: number } | undefined;

  const isLeader = () => held !== undefined && clock.now() < held.validUntil;
  const value = () => (held ? `${nodeId}|${held.token}` : '');

  const acquire = async () => {
    const sentAt = clock.now();
    const token = await redisCall('lease acquire', () =>
      acquireScript.run(redis, [key, tokenKey], [nodeId, ttlMs]),
    );
    if (typeof token !== 'number') {
      held = undefined;
      return false;
    }
    held = { token, validUntil: sentAt + ttlMs };
    return true;
  };

  const renew = async () => {
    if (!held) return false;
    const sentAt = clock.now();
    const mine = held;
    const ok = await redisCall('lease renew', () => renewScript.run(redis, [key], [value(), ttlMs]));
    if (held !== mine) return isLeader();
    if (ok === 1) {
      held = { token: mine.token, validUntil: sentAt + ttlMs };
      return true;
    }
    held = undefined;
    return false;
  };

  const release = async () => {
    if (!held) return;
    const v = value();
    held = undefined;
    await redisCall('lease release', () => releaseScript.run(redis, [key], [v]));
  };

  return {
    tokenKey,
    acquire,
    renew,
    release,
    isLeader,
    token: () => (isLeader() ? held?.token : undefined),
    run(onAcquired, onLost) {
      const stop = new AbortController();
      const interval = Math.max(1, Math.floor(ttlMs / 3));
      const loop = (async () => {
        let leading = false;
        while (!stop.signal.aborted) {
          try {
            const ok: boolean = leading ? await renew() : await acquire();
            if (ok && !leading && held) onAcquired(held.token);
            if (!ok && leading) onLost();
            leading = ok;
          } catch (err) {
            opts.onError?.(err);
            // Unreachable Redis: keep leading only while the local validity lasts.
            if (leading && !isLeader()) {
              leading = false;
              held = undefined;
              onLost();
            }
          }
          await clock.sleep(interval, stop.signal).catch(() => {});
        }
      })();
      return async () => {
        stop.abort();
        await loop;
        await release().catch((err) => opts.onError?.(err));
      };
    },
  };
}
