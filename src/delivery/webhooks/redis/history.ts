/**
 * The Redis history: each endpoint's deliveries (JSON by id), bodies and attempt logs, found by id through
 * the shared id -> endpoint index; the status counts are each endpoint's, summed.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { Delivery, DeliveryStatus } from '../model.js';
import type { WebhookHistory } from '../ports.js';
import { attemptsFromLog, deliveryFromJson } from './hashes.js';
import { type OutboxKeys, type OutboxScriptRunner, onEndpoint, pipelineValues } from './keys.js';
import { pruneScript } from './scripts.js';

const PRUNE_BATCH = 500;
const LIST_BATCH = 100;

/** The deliveries of these ids of one endpoint that exist, in the same order. */
export async function readDeliveries(
  redis: Redis,
  keys: OutboxKeys,
  endpointId: string,
  ids: readonly (number | string)[],
): Promise<Delivery[]> {
  if (ids.length === 0) return [];
  const rows = await redisCall('deliveries', () =>
    redis.hmget(keys.endpoint(endpointId).deliveries, ...ids.map(String)),
  );
  return rows.flatMap((json) => deliveryFromJson(json) ?? []);
}

/** The endpoint a delivery id belongs to, from the shared index; undefined when it has none. */
export const endpointOf = async (redis: Redis, keys: OutboxKeys, id: number | string) =>
  (await redisCall(`endpoint of ${id}`, () => redis.hget(keys.deliveryEndpoints, String(id)))) ?? undefined;

/** Every endpoint id, by creation time. */
export const endpointIds = (redis: Redis, keys: OutboxKeys) =>
  redisCall('endpoints', () => redis.zrange(keys.endpoints, 0, -1));

export function createRedisHistory(redis: Redis, keys: OutboxKeys, run: OutboxScriptRunner): WebhookHistory {
  /** One field of the delivery's endpoint's hash `which`, found through the id index. */
  const field = async (id: number, which: 'deliveries' | 'bodies' | 'attempts') => {
    const ep = await endpointOf(redis, keys, id);
    if (ep === undefined) return undefined;
    return (
      (await redisCall(`${which} of ${id}`, () => redis.hget(keys.endpoint(ep)[which], String(id)))) ??
      undefined
    );
  };

  return {
    delivery: async (id) => deliveryFromJson(await field(id, 'deliveries')),

    async listDeliveries(endpointId, q) {
      const out: Delivery[] = [];
      let max = q.beforeId === undefined ? '+inf' : `(${q.beforeId}`;
      const key = keys.endpoint(endpointId).byId;
      // Newest first, filtered by status a page at a time.
      while (out.length < q.limit) {
        const ids = await redisCall('list deliveries', () =>
          redis.zrevrangebyscore(key, max, '-inf', 'LIMIT', 0, LIST_BATCH),
        );
        for (const d of await readDeliveries(redis, keys, endpointId, ids)) {
          if (out.length < q.limit && (q.status === undefined || d.status === q.status)) out.push(d);
        }
        if (ids.length < LIST_BATCH) break;
        max = `(${ids[ids.length - 1]}`;
      }
      return out;
    },

    body: (id) => field(id, 'bodies'),

    attempts: async (deliveryId) => attemptsFromLog(await field(deliveryId, 'attempts')),

    async counts() {
      const p = redis.pipeline();
      for (const ep of await endpointIds(redis, keys)) p.hgetall(keys.endpoint(ep).counts);
      const out: Record<DeliveryStatus, number> = { pending: 0, in_flight: 0, delivered: 0, failed: 0 };
      for (const raw of (await pipelineValues('delivery counts', p)) as Record<string, string>[]) {
        for (const status of Object.keys(out) as DeliveryStatus[]) out[status] += Number(raw[status] ?? 0);
      }
      return out;
    },

    /** Endpoint by endpoint, a bounded batch per script, each pruned id then dropped from the id index. */
    async prune(before) {
      let total = 0;
      for (const ep of await endpointIds(redis, keys)) {
        for (;;) {
          const ids = (await onEndpoint(run, keys, ep)('prune deliveries', pruneScript, [
            before,
            PRUNE_BATCH,
          ])) as string[];
          if (ids.length > 0)
            await redisCall('prune id index', () => redis.hdel(keys.deliveryEndpoints, ...ids));
          total += ids.length;
          if (ids.length < PRUNE_BATCH) break;
        }
      }
      return total;
    },
  };
}
