/**
 * Keys of the Redis adapter, all under `<prefix>webhooks:`, and how a script or a pipeline is run.
 *
 * Redis Cluster runs a script only when every key it touches is declared in KEYS and all of them hash to one
 * slot. So every key of one endpoint carries the hash tag `{ep:<id>}` and every per-endpoint script takes
 * exactly that endpoint's keys (`endpointKeys`, in this order: prelude.lua names them); the keys shared by
 * every endpoint carry the tag `{shared}` and are touched only by plain commands and the two shared scripts.
 * Nothing is keyed per delivery or per stream: a delivery is a field of its endpoint's hashes.
 */
import type { Redis } from 'ioredis';
import { RedisStoreError, redisCall } from '../../../redis/errors.js';
import type { RedisScript } from '../../../redis/script.js';

/** One endpoint's keys, in the order every per-endpoint script takes them in KEYS. */
export function endpointKeys(w: string, id: string) {
  const e = `${w}{ep:${id}}`;
  return {
    /** Hash: the endpoint's fields, `in_flight` (its claims in flight), `last_id`, `fence` (its fence mark). */
    endpoint: e,
    /** Hash: delivery id -> the delivery as JSON (its fields but the body, and its claim while in flight). */
    deliveries: `${e}:d`,
    /** Hash: delivery id -> the body, stored once at enqueue. */
    bodies: `${e}:bodies`,
    /** Hash: delivery id -> its attempts, one JSON row a line. */
    attempts: `${e}:attempts`,
    /** Zset id -> id: every delivery, for listing. */
    byId: `${e}:ids`,
    /** Zset created_at -> id: originals (not replays), for replaying a time range. */
    originals: `${e}:originals`,
    /** Hash: event id -> delivery id, the feed's dedupe. */
    events: `${e}:events`,
    /** Zset of owed deliveries as `<stream>\0<id padded to 20 digits>` (score 0): each stream's chain in id
     * order, its head the first of its prefix. */
    chains: `${e}:chains`,
    /** Zset pending chain head id -> next attempt time (the endpoint's pause and enabled flag apply on top). */
    due: `${e}:due`,
    /** Zset id -> claim time: the claims in flight. */
    claimed: `${e}:claimed`,
    /** Zset updated_at -> id: delivered and failed deliveries, for pruning. */
    finished: `${e}:finished`,
    /** Hash status -> n. */
    counts: `${e}:counts`,
  };
}

export type EndpointKeys = ReturnType<typeof endpointKeys>;

export function outboxKeys(prefix: string) {
  const w = `${prefix}webhooks:`;
  const shared = `${w}{shared}:`;
  return {
    /** Everything the outbox writes is under this prefix. */
    w,
    endpoint: (id: string) => endpointKeys(w, id),
    /** Zset created_at -> endpoint id. */
    endpoints: `${shared}endpoints`,
    /** INCR on every change of which endpoints want what, after the change (the feed plans against it). */
    endpointsVersion: `${shared}endpoints-version`,
    feedCursor: `${shared}feed-cursor`,
    /** Counters that hand out ranges (INCRBY) before a per-endpoint script uses them. */
    ids: `${shared}ids`,
    claims: `${shared}claims`,
    attemptIds: `${shared}attempt-ids`,
    /** Hash delivery id -> endpoint id: where `/deliveries/:id` and a held claim are found. */
    deliveryEndpoints: `${shared}delivery-endpoints`,
    /** Taken (SET NX PX) by the node that upgrades an older key layout (upgrade.ts). */
    upgradeLock: `${shared}upgrade`,
  };
}

export type OutboxKeys = ReturnType<typeof outboxKeys>;

/** Runs one outbox script with its KEYS and ARGV; a Redis failure rejects with `redis_unavailable`. */
export type OutboxScriptRunner = (
  what: string,
  script: RedisScript,
  keys: string[],
  args: Array<string | number>,
) => Promise<unknown>;

/** Runs a per-endpoint script of `ep`: that endpoint's keys in KEYS, its id as ARGV[1]. */
export const onEndpoint =
  (run: OutboxScriptRunner, keys: OutboxKeys, ep: string) =>
  (what: string, script: RedisScript, args: Array<string | number>): Promise<unknown> =>
    run(what, script, Object.values(keys.endpoint(ep)), [ep, ...args]);

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
