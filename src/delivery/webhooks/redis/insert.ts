/**
 * New deliveries on Redis: ids come from a shared counter, which a per-endpoint script cannot touch under
 * Redis Cluster, so the caller reserves them (with their id -> endpoint index entries) in one shared script
 * and then runs the endpoint's own script, which answers the ids it used; the rest are unindexed again.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { RedisScript } from '../../../redis/script.js';
import type { OutboxKeys, OutboxScriptRunner } from './keys.js';
import { onEndpoint } from './keys.js';
import { reserveIdsScript } from './scripts.js';

/** What an inserting script answered: the ids it used, or that there is no such endpoint. */
export type Inserted = string[] | 'gone';

/**
 * Reserves `n` ids for endpoint `ep` and runs `script` with the first one after `args` (enqueue.lua and
 * replay.lua take it there). A script that finds the reservation below the endpoint's last id (another
 * caller reserved later but inserted first) writes nothing, and the ids are reserved again: each new
 * reservation is above every id handed out before it, so the loop ends.
 */
export async function insertWithIds(
  redis: Redis,
  keys: OutboxKeys,
  run: OutboxScriptRunner,
  ep: string,
  n: number,
  what: string,
  script: RedisScript,
  args: { before: Array<string | number>; after: Array<string | number> },
): Promise<Inserted> {
  if (n === 0) return [];
  for (;;) {
    const first = Number(
      await run('reserve delivery ids', reserveIdsScript, [keys.ids, keys.deliveryEndpoints], [ep, n]),
    );
    const [status, ...used] = (await onEndpoint(run, keys, ep)(what, script, [
      ...args.before,
      first,
      ...args.after,
    ])) as string[];
    const kept = new Set(used);
    const unused = Array.from({ length: n }, (_, i) => String(first + i)).filter((id) => !kept.has(id));
    if (unused.length > 0)
      await redisCall('unindex unused ids', () => redis.hdel(keys.deliveryEndpoints, ...unused));
    if (status === 'gone') return 'gone';
    if (status === 'ok') return used;
  }
}
