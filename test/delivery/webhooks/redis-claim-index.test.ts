/**
 * The Redis outbox's claim index (`W claimed`, claim time -> id, and each endpoint's `in_flight` count),
 * which lets claim, recover and the oldest-claim probe work without scanning every claim in flight, and
 * the one-time upgrade of the set `W inflight` written by earlier versions (docs/operations.md).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createRedisOutbox } from '../../../src/delivery/webhooks/redis/outbox.js';
import { describeWithRedis } from '../../support/redis.js';
import { eventEntry } from './helpers.js';

describeWithRedis('the Redis claim index', (url) => {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let n = 0;
  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });

  /** An outbox with one standard endpoint owed `owed` deliveries on distinct streams, at time `at`. */
  const setUp = async (owed: number) => {
    const prefix = `${runPrefix}${++n}:`;
    let at = 1_000;
    const outbox = createRedisOutbox({ redis, prefix, now: () => at });
    await outbox.endpoints.createEndpoint({
      id: 'ep_1',
      url: 'https://example.com/hook',
      kind: 'standard',
      description: '',
      eventTypes: [],
      filters: {},
      enabled: true,
      secret: 'whsec_test',
    });
    for (let i = 0; i < owed; i++) {
      const e = eventEntry('race.results', {}).event;
      const event = { ...e, id: `ev-${i}`, stream: `race-${i}` };
      await outbox.queue.enqueue({ endpointId: 'ep_1', event, body: JSON.stringify(event) });
    }
    const W = `${prefix}webhooks:`;
    return {
      prefix,
      W,
      outbox,
      setNow: (t: number) => {
        at = t;
      },
    };
  };
  const claimOpts = { chatMinIntervalMs: 0, perEndpoint: 2 };

  it('keeps the claim index and the per-endpoint count in step through claim, record and recover', async () => {
    const { W, outbox, setNow } = await setUp(3);
    const first = await outbox.queue.claimDue(1_000, 1, claimOpts);
    setNow(2_000);
    const second = await outbox.queue.claimDue(2_000, 5, claimOpts);
    // The cap of 2 per endpoint holds across calls: the count is the endpoint's own, not a scan.
    expect([first, second].map((c) => (c === 'fenced' ? c : c.length))).toEqual([1, 1]);
    expect(await redis.zrange(`${W}claimed`, 0, -1, 'WITHSCORES')).toEqual(['1', '1000', '2', '2000']);
    expect(await redis.hget(`${W}ep:ep_1`, 'in_flight')).toBe('2');
    expect((await outbox.queue.wakeTimes()).oldestClaimAt).toBe(1_000);

    const [d1] = first as Exclude<typeof first, 'fenced'>;
    const attempt = { at: 2_500, statusCode: 200, latencyMs: 5, responseBody: '', outcome: 'delivered' };
    expect(
      await outbox.queue.recordAttempt(d1!, attempt, { status: 'delivered', nextAttemptAt: 2_500 }),
    ).toBe(true);
    expect(await redis.zrange(`${W}claimed`, 0, -1)).toEqual(['2']);
    expect(await redis.hget(`${W}ep:ep_1`, 'in_flight')).toBe('1');

    expect(await outbox.queue.recoverInFlight({ claimedBefore: 1_999 })).toBe(0);
    expect(await outbox.queue.recoverInFlight({ claimedBefore: 2_000 })).toBe(1);
    expect(await redis.exists(`${W}claimed`)).toBe(0);
    expect(await redis.hget(`${W}ep:ep_1`, 'in_flight')).toBe('0');
    expect((await outbox.queue.wakeTimes()).oldestClaimAt).toBe(null);
    expect(await outbox.history.counts()).toMatchObject({ pending: 2, in_flight: 0, delivered: 1 });
  });

  it('upgrades the in-flight set of the earlier layout before its first script, once', async () => {
    const { prefix, W, outbox } = await setUp(2);
    expect(await outbox.queue.claimDue(1_000, 5, claimOpts)).toHaveLength(2);
    // Rewrite the claims as an earlier version left them: a set of ids, no index, no per-endpoint count.
    await redis.del(`${W}claimed`);
    await redis.hdel(`${W}ep:ep_1`, 'in_flight');
    await redis.sadd(`${W}inflight`, '1', '2');

    const upgraded = createRedisOutbox({ redis, prefix, now: () => 5_000 });
    expect((await upgraded.queue.wakeTimes()).oldestClaimAt).toBe(1_000);
    expect(await redis.exists(`${W}inflight`)).toBe(0);
    expect(await redis.zrange(`${W}claimed`, 0, -1, 'WITHSCORES')).toEqual(['1', '1000', '2', '1000']);
    expect(await redis.hget(`${W}ep:ep_1`, 'in_flight')).toBe('2');
    // The upgraded claims are full claims: the cap counts them and expiry recovers them.
    expect(await upgraded.queue.claimDue(5_000, 5, claimOpts)).toEqual([]);
    expect(await upgraded.queue.recoverInFlight({ claimedBefore: 1_000 })).toBe(2);
    expect(await upgraded.history.counts()).toMatchObject({ pending: 2, in_flight: 0 });
  });
});
