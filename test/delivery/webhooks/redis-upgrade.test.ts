/**
 * The one-time upgrade of the Redis outbox's key layout (src/delivery/webhooks/redis/upgrade.ts): an outbox
 * written by the earlier version (keys built from the prefix in Lua, shared due/claimed/finished/counts) is
 * moved to the Cluster-safe layout before the first call, with every delivery, body, attempt, claim and chain
 * kept and the counters going on; repeating it changes nothing, and one interrupted half-way is finished by
 * the next call. docs/operations.md describes it.
 */
import { expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/delivery/webhooks/ports.js';
import { createRedisOutbox } from '../../../src/delivery/webhooks/redis/outbox.js';
import { describeWithRedis, suiteRedis } from '../../support/redis.js';
import { raceEvent } from './port-fixtures.js';

const claimOpts = { chatMinIntervalMs: 0, perEndpoint: 2 };

describeWithRedis('upgrading the Redis outbox key layout', (url) => {
  const { redis, runPrefix } = suiteRedis(url);
  let n = 0;

  /** What the earlier version left: ep_1 owed a chain r1 (2 in flight, 3 behind it) and a retried head on
   * r2 (4), with 1 delivered; ep_2 owed 5. Written with the old key names, exactly as its scripts did. */
  const writeOldLayout = async () => {
    const prefix = `${runPrefix}${++n}:`;
    const W = `${prefix}webhooks:`;
    const endpoint = (id: string, at: number, inFlight: number) => ({
      id,
      url: `https://${id}.example.com/`,
      kind: 'standard',
      description: '',
      event_types: '["*"]',
      filters: '{}',
      enabled: 1,
      secret: 'whsec_x',
      paused_until: 0,
      created_at: at,
      updated_at: at,
      in_flight: inFlight,
    });
    const delivery = (id: number, ep: string, stream: string, status: string, extra: object = {}) => ({
      id,
      endpoint_id: ep,
      event_id: `e${id}`,
      event_type: 'race.results',
      stream,
      seq: id,
      body: `body ${id}`,
      status,
      attempts: 0,
      next_attempt_at: 1_000,
      created_at: 1_000,
      updated_at: 1_000,
      ...extra,
    });
    const attempt = (id: number, delivery: number) =>
      JSON.stringify({
        id,
        delivery_id: delivery,
        attempt_no: 1,
        at: 1_500,
        status_code: 500,
        latency_ms: 3,
        error: null,
        response_body: 'no',
        outcome: 'retry',
        claim: null,
        fence: null,
      });
    await redis
      .multi()
      .zadd(`${W}endpoints`, 100, 'ep_1', 200, 'ep_2')
      .hset(`${W}ep:ep_1`, endpoint('ep_1', 100, 1))
      .hset(`${W}ep:ep_2`, endpoint('ep_2', 200, 0))
      .hset(`${W}d:1`, delivery(1, 'ep_1', 'r1', 'delivered', { attempts: 1, updated_at: 1_500 }))
      .rpush(`${W}d:1:attempts`, attempt(1, 1))
      .hset(
        `${W}d:2`,
        delivery(2, 'ep_1', 'r1', 'in_flight', { updated_at: 1_600, claim: 7, claim_fence: '' }),
      )
      .hset(`${W}d:3`, delivery(3, 'ep_1', 'r1', 'pending'))
      .hset(`${W}d:4`, delivery(4, 'ep_1', 'r2', 'pending', { attempts: 1, next_attempt_at: 3_000 }))
      .rpush(`${W}d:4:attempts`, attempt(2, 4))
      .hset(`${W}d:5`, delivery(5, 'ep_2', 'r1', 'pending'))
      .zadd(`${W}ep:ep_1:deliveries`, 1, 1, 2, 2, 3, 3, 4, 4)
      .zadd(`${W}ep:ep_1:originals`, 1_000, 1, 1_000, 2, 1_000, 3, 1_000, 4)
      .hset(`${W}ep:ep_1:events`, { e1: 1, e2: 2, e3: 3, e4: 4 })
      .sadd(`${W}ep:ep_1:streams`, 'r1', 'r2')
      .zadd(`${W}chain:ep_1:r1`, 2, 2, 3, 3)
      .zadd(`${W}chain:ep_1:r2`, 4, 4)
      .zadd(`${W}ep:ep_2:deliveries`, 5, 5)
      .zadd(`${W}ep:ep_2:originals`, 1_000, 5)
      .hset(`${W}ep:ep_2:events`, { e5: 5 })
      .sadd(`${W}ep:ep_2:streams`, 'r1')
      .zadd(`${W}chain:ep_2:r1`, 5, 5)
      .zadd(`${W}due`, 3_000, 4, 1_000, 5)
      .zadd(`${W}claimed`, 1_600, 2)
      .zadd(`${W}finished`, 1_500, 1)
      .hset(`${W}counts`, { pending: 3, in_flight: 1, delivered: 1 })
      .set(`${W}ids`, 5)
      .set(`${W}attempt-ids`, 2)
      .set(`${W}claims`, 7)
      .set(`${W}endpoints-version`, 3)
      .set(`${W}feed-cursor`, '9-0')
      .exec();
    return { prefix, W };
  };

  /** Keys left under the prefix that are not of the new layout (every new key carries a hash tag). */
  const oldKeys = async (W: string) => (await redis.keys(`${W}*`)).filter((k) => !k.includes('{'));

  const expectUpgraded = async (outbox: ReturnType<typeof createRedisOutbox>, W: string) => {
    expect((await outbox.endpoints.listEndpoints()).map((e) => [e.id, e.createdAt])).toEqual([
      ['ep_1', 100],
      ['ep_2', 200],
    ]);
    expect(await oldKeys(W)).toEqual([]);
    expect(await outbox.history.counts()).toEqual({ pending: 3, in_flight: 1, delivered: 1, failed: 0 });
    expect(await outbox.queue.feedCursor()).toBe('9-0');
    expect(await outbox.queue.wakeTimes()).toEqual({ nextDueAt: 1_000, oldestClaimAt: 1_600 });
    expect(await outbox.history.delivery(2)).toMatchObject({ status: 'in_flight', endpointId: 'ep_1' });
    expect(await outbox.history.body(3)).toBe('body 3');
    expect((await outbox.history.attempts(4)).map((a) => [a.id, a.outcome])).toEqual([[2, 'retry']]);
    expect((await outbox.history.listDeliveries('ep_1', { limit: 10 })).map((d) => d.id)).toEqual([
      4, 3, 2, 1,
    ]);
  };

  it('moves every delivery, claim, chain and counter, and goes on from them', async () => {
    const { prefix, W } = await writeOldLayout();
    let at = 1_000;
    const outbox = createRedisOutbox({ redis, prefix, now: () => at });
    await expectUpgraded(outbox, W);

    // 3 waits behind 2 (in flight) on r1, 4 is due at 3 000: only ep_2's head is due; claim numbers go on.
    expect(await outbox.queue.claimDue(1_000, 10, claimOpts)).toMatchObject([{ id: 5, claim: 8 }]);
    // The upgraded claim is a full claim: its result is recorded under its claim number, and the chain moves.
    const held = (await outbox.history.delivery(2)) as ClaimedDelivery;
    const ok = { at: 2_000, statusCode: 200, latencyMs: 1, responseBody: '', outcome: 'delivered' };
    expect(
      await outbox.queue.recordAttempt({ ...held, claim: 7, fence: null }, ok, {
        status: 'delivered',
        nextAttemptAt: 2_000,
      }),
    ).toBe(true);
    expect((await outbox.history.attempts(2)).map((a) => a.id)).toEqual([3]);
    at = 3_000;
    expect((await outbox.queue.claimDue(3_000, 10, claimOpts)) as ClaimedDelivery[]).toMatchObject([
      { id: 3, claim: 9 },
      { id: 4, claim: 10 },
    ]);
    // Ids go on, and the feed's dedupe was kept: e1 is not enqueued again for ep_1.
    expect(
      await outbox.queue.enqueue({ endpointId: 'ep_2', event: raceEvent('e9'), body: 'b' }),
    ).toMatchObject({ id: 6 });
    const { version } = await outbox.endpoints.enabledEndpoints();
    const deliveries = [{ endpointId: 'ep_1', event: raceEvent('e1'), body: 'again' }];
    expect(
      await outbox.queue.enqueueFromFeed({ from: '9-0', to: '10-0', endpointsVersion: version, deliveries }),
    ).toEqual({ enqueued: 0 });
  });

  it('does nothing the second time', async () => {
    const { prefix, W } = await writeOldLayout();
    await createRedisOutbox({ redis, prefix, now: () => 1_000 }).queue.wakeTimes();
    const snapshot = async () => {
      const keys = (await redis.keys(`${W}*`)).sort();
      return Promise.all(keys.map(async (k) => [k, await redis.dump(k)]));
    };
    const before = await snapshot();
    await expectUpgraded(createRedisOutbox({ redis, prefix, now: () => 1_000 }), W);
    expect(await snapshot()).toEqual(before);
  });

  it('is finished by the next call after it was cut off half-way, and waits for another node upgrading', async () => {
    const { prefix, W } = await writeOldLayout();
    // Redis goes away just after the first endpoint's keys were moved, before it was marked done.
    let cut = true;
    const flaky = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop === 'zrem' && cut) {
          cut = false;
          return async () => {
            throw new Error('connection lost');
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const outbox = createRedisOutbox({ redis: flaky, prefix, now: () => 1_000 });
    await expect(outbox.queue.wakeTimes()).rejects.toMatchObject({ code: 'redis_unavailable' });

    // Meanwhile another node holds the upgrade lock: this one answers redis_unavailable, writing nothing.
    await redis.set(`${W}{shared}:upgrade`, 'other node');
    await expect(outbox.queue.wakeTimes()).rejects.toMatchObject({ code: 'redis_unavailable' });
    await redis.del(`${W}{shared}:upgrade`);

    await expectUpgraded(outbox, W);
    expect(await redis.exists(`${W}{shared}:upgrade`)).toBe(0);
  });
});
