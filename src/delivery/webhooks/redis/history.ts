/** The Redis history: delivery hashes, each delivery's attempts (a list of JSON), the status counts. */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { Delivery, DeliveryStatus } from '../model.js';
import type { WebhookHistory } from '../ports.js';
import { attemptFromJson, DELIVERY_FIELDS, deliveryFromValues } from './hashes.js';
import { type OutboxKeys, type OutboxScriptRunner, pipelineValues } from './keys.js';
import { pruneScript } from './scripts.js';

const PRUNE_BATCH = 500;
const LIST_BATCH = 100;

/** The deliveries of these ids that exist, in the same order. */
export async function readDeliveries(
  redis: Redis,
  keys: OutboxKeys,
  ids: readonly (number | string)[],
): Promise<Delivery[]> {
  if (ids.length === 0) return [];
  const p = redis.pipeline();
  for (const id of ids) p.hmget(keys.delivery(id), ...DELIVERY_FIELDS);
  const rows = await pipelineValues('deliveries', p);
  return rows.flatMap((values) => deliveryFromValues(values as (string | null)[]) ?? []);
}

export function createRedisHistory(redis: Redis, keys: OutboxKeys, run: OutboxScriptRunner): WebhookHistory {
  const deliveries = (ids: readonly (number | string)[]) => readDeliveries(redis, keys, ids);
  return {
    delivery: async (id) => (await deliveries([id]))[0],

    async listDeliveries(endpointId, q) {
      const out: Delivery[] = [];
      let max = q.beforeId === undefined ? '+inf' : `(${q.beforeId}`;
      // Newest first, filtered by status a page at a time.
      while (out.length < q.limit) {
        const key = keys.endpointDeliveries(endpointId);
        const ids = await redisCall('list deliveries', () =>
          redis.zrevrangebyscore(key, max, '-inf', 'LIMIT', 0, LIST_BATCH),
        );
        for (const d of await deliveries(ids)) {
          if (out.length < q.limit && (q.status === undefined || d.status === q.status)) out.push(d);
        }
        if (ids.length < LIST_BATCH) break;
        max = `(${ids[ids.length - 1]}`;
      }
      return out;
    },

    body: async (id) =>
      (await redisCall(`body of ${id}`, () => redis.hget(keys.delivery(id), 'body'))) ?? undefined,

    async attempts(deliveryId) {
      const rows = await redisCall(`attempts of ${deliveryId}`, () =>
        redis.lrange(keys.attempts(deliveryId), 0, -1),
      );
      return rows.map(attemptFromJson);
    },

    async counts() {
      const raw = await redisCall('delivery counts', () => redis.hgetall(keys.counts));
      const out: Record<DeliveryStatus, number> = { pending: 0, in_flight: 0, delivered: 0, failed: 0 };
      for (const status of Object.keys(out) as DeliveryStatus[]) out[status] = Number(raw[status] ?? 0);
      return out;
    },

    async prune(before) {
      let total = 0;
      for (;;) {
        const n = (await run('prune deliveries', pruneScript, [before, PRUNE_BATCH])) as number;
        total += n;
        if (n < PRUNE_BATCH) return total;
      }
    },
  };
}
