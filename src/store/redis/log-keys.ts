/** The Redis event log's keys (docs/redis.md#keys), shared by the log and its retention. */
import type { StreamId } from '../../events/envelope.js';

/** The keys of one prefix. The stream id sits in a hash tag so that one stream's keys share a slot. */
export function redisLogKeys(prefix: string) {
  return {
    epoch: `${prefix}epoch`,
    streams: `${prefix}streams`,
    retained: `${prefix}retained`,
    retainedReady: `${prefix}retained:ready`,
    fence: `${prefix}fence`,
    feed: `${prefix}feed`,
    head: (s: StreamId) => `${prefix}{${s}}:head`,
    document: (s: StreamId) => `${prefix}{${s}}:doc`,
    patches: (s: StreamId) => `${prefix}{${s}}:patches`,
    entries: (s: StreamId) => `${prefix}{${s}}:log`,
  };
}

export type RedisLogKeys = ReturnType<typeof redisLogKeys>;
