/**
 * What the Redis outbox's Cluster-safe layout adds beyond the port contracts (docs/webhooks.md, Redis
 * multi-node): delivery ids reserved before the per-endpoint script stay in insertion order per endpoint when
 * two callers reserve and insert in opposite orders; the shared id -> endpoint index loses what is pruned and
 * deleted; an endpoint's every key carries its tag, and deleting it leaves none.
 */
import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/delivery/webhooks/ports.js';
import { createRedisOutbox } from '../../../src/delivery/webhooks/redis/outbox.js';
import { describeWithRedis, suiteRedis } from '../../support/redis.js';
import { newEndpoint, raceEvent } from './port-fixtures.js';

describeWithRedis('the Redis outbox key layout', (url) => {
  const { redis, runPrefix } = suiteRedis(url);
  let n = 0;

  const open = async (client: Redis = redis, prefix = `${runPrefix}${++n}:`) => {
    const outbox = createRedisOutbox({ redis: client, prefix, now: () => 1_000 });
    return { outbox, prefix, W: `${prefix}webhooks:` };
  };

  it('reserves again when another caller inserted above its ids first, keeping insertion order', async () => {
    const { outbox, prefix, W } = await open();
    await outbox.endpoints.createEndpoint(newEndpoint('ep_1'));
    const other = (await open(redis, prefix)).outbox;
    // This node reserves its id, then, before its script runs, another node reserves and inserts.
    let overtaken = false;
    const slow = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop === 'evalsha' && !overtaken) {
          return async (sha: string, numKeys: number, ...rest: Array<string | number>) => {
            if (String(rest[0]).endsWith('{ep:ep_1}')) {
              overtaken = true;
              await other.queue.enqueue({ endpointId: 'ep_1', event: raceEvent('fast'), body: 'f' });
            }
            return target.evalsha(sha, numKeys, ...rest);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const mine = (await open(slow, prefix)).outbox;
    expect(
      await mine.queue.enqueue({ endpointId: 'ep_1', event: raceEvent('slow'), body: 's' }),
    ).toMatchObject({
      id: 3,
      eventId: 'slow',
    });
    // Id 1 was reserved first but never used: skipped, and not left in the index.
    const listed = await outbox.history.listDeliveries('ep_1', { limit: 10 });
    expect(listed.map((d) => [d.id, d.eventId])).toEqual([
      [3, 'slow'],
      [2, 'fast'],
    ]);
    expect(await redis.hkeys(`${W}{shared}:delivery-endpoints`)).toEqual(['2', '3']);
  });

  it('keeps every key of an endpoint under its tag, drops pruned ids from the index, and deletes it whole', async () => {
    const { outbox, W } = await open();
    await outbox.endpoints.createEndpoint(newEndpoint('ep_1'));
    await outbox.queue.enqueue({ endpointId: 'ep_1', event: raceEvent('e1'), body: 'b1' });
    await outbox.queue.enqueue({ endpointId: 'ep_1', event: raceEvent('e2'), body: 'b2' });
    const [d1] = (await outbox.queue.claimDue(1_000, 10, {
      chatMinIntervalMs: 0,
      perEndpoint: 1,
    })) as ClaimedDelivery[];
    const ok = { at: 1_000, statusCode: 200, latencyMs: 1, responseBody: '', outcome: 'delivered' };
    await outbox.queue.recordAttempt(d1!, ok, { status: 'delivered', nextAttemptAt: 1_000 });
    const keys = await redis.keys(`${W}*`);
    expect(keys.filter((k) => !k.startsWith(`${W}{ep:ep_1}`) && !k.startsWith(`${W}{shared}:`))).toEqual([]);

    expect(await outbox.history.prune(1_001)).toBe(1);
    expect(await redis.hkeys(`${W}{shared}:delivery-endpoints`)).toEqual(['2']);
    expect(await outbox.history.delivery(1)).toBeUndefined();

    expect(await outbox.endpoints.deleteEndpoint('ep_1')).toBe(true);
    expect(await redis.keys(`${W}{ep:ep_1}*`)).toEqual([]);
    expect(await redis.exists(`${W}{shared}:delivery-endpoints`)).toBe(0);
    expect(await outbox.history.counts()).toEqual({ pending: 0, in_flight: 0, delivered: 0, failed: 0 });
  });
});
