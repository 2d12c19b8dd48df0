/**
 * lru-cache on an injected clock: TTLs read the clock at every check (no timer, no cached instant), so a
 * race-clock cache expires in race time and a manual clock drives it in tests. lru-cache takes a start of 0
 * as "no TTL", so a clock must not read 0 (the real ones read epoch milliseconds).
 */
import type { Clock } from './clock.js';

export const onClock = (clock: Clock) => ({ perf: { now: () => clock.now() }, ttlResolution: 0 }) as const;

/**
 * A cache of what goes with activity: an entry neither set nor read for `idleMs` is stale (`purgeStale`
 * drops it), and beyond `max` the least recently used goes.
 */
export const idleCacheOptions = (clock: Clock, max: number, idleMs: number) =>
  ({ max, ttl: idleMs, updateAgeOnGet: true, ...onClock(clock) }) as const;
