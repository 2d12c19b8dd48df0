/**
 * Fencing across a Redis restart without persistence (reproduced in issue 14): every key is gone, the lease's
 * token counter with them, while the leader still holds a token from before. Its next write must not lock
 * every later holder out, and a holder whose write is refused as fenced must get a token that writes.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createLease } from '../../src/cluster/lease.js';
import { createRedisOutbox } from '../../src/delivery/webhooks/redis/outbox.js';
import { createRedisEventLog } from '../../src/store/redis/redis-event-log.js';
import { eventEntry } from '../delivery/webhooks/helpers.js';
import { event } from '../store/entry-builders.js';
import { describeWithRedis } from '../support/redis.js';

const now = new Date('2026-11-22T10:00:00.000Z');

describeWithRedis('fencing across a Redis restart without persistence', (url) => {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let n = 0;
  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });
  /** What the restart leaves: nothing under the prefix. */
  const restartWithoutPersistence = async (prefix: string) => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  };
  const node = (prefix: string, nodeId: string, clock = createManualClock(0)) => {
    const lease = createLease({ redis, key: `${prefix}poller-lease`, nodeId, ttlMs: 5_000, clock });
    const log = createRedisEventLog({ redis, prefix, fence: () => lease.token(), fenceKey: lease.tokenKey });
    return { lease, log };
  };

  it('gives the holder that acquires after a stale write a token that can write', async () => {
    const prefix = `${runPrefix}${++n}:`;
    const a = node(prefix, 'a');
    // A few terms before the restart: the counter stands at 3.
    for (let i = 0; i < 3; i++) {
      expect(await a.lease.acquire()).toBe(true);
      if (i < 2) await a.lease.release();
    }
    await a.log.append('r1', { entries: [event('before')], now });
    await restartWithoutPersistence(prefix);
    // The leader has not noticed yet: it writes with its old token into the new, empty data set.
    await a.log.append('r1', { entries: [event('stale')], now });
    expect(await a.lease.renew()).toBe(false);
    expect(await a.lease.acquire()).toBe(true);
    await a.log.append('r1', { entries: [event('after')], now });
    const read = await a.log.read('r1', 0);
    expect(read.ok && read.entries.map((e) => e.kind === 'event' && e.event.type)).toEqual([
      'stale',
      'after',
    ]);
  });

  it('lets a node that took the lease after the restart write once its fenced write made it acquire again', async () => {
    const prefix = `${runPrefix}${++n}:`;
    const a = node(prefix, 'a');
    const b = node(prefix, 'b');
    for (let i = 0; i < 3; i++) {
      expect(await a.lease.acquire()).toBe(true);
      await a.lease.release();
    }
    expect(await a.lease.acquire()).toBe(true);
    await restartWithoutPersistence(prefix);
    expect(await b.lease.acquire()).toBe(true);
    // a, paused through the restart, writes with its old, higher token.
    await a.log.append('r1', { entries: [event('a-stale')], now });
    await expect(b.log.append('r1', { entries: [event('b-refused')], now })).rejects.toMatchObject({
      code: 'fenced',
    });
    // b gives its term up and acquires again: its new token is above every token a write carried.
    await b.lease.release();
    expect(await b.lease.acquire()).toBe(true);
    await b.log.append('r1', { entries: [event('b-writes')], now });
    await expect(a.log.append('r1', { entries: [event('a-late')], now })).rejects.toMatchObject({
      code: 'fenced',
    });
  });

  it("refuses an outbox claim from a node that lost the lease, and takes the new holder's", async () => {
    const prefix = `${runPrefix}${++n}:`;
    const clock = createManualClock(0);
    const a = node(prefix, 'a', clock);
    const b = node(prefix, 'b', clock);
    const outbox = createRedisOutbox({ redis, prefix, now: () => clock.now(), fenceKey: a.lease.tokenKey });
    const claim = (fence: number | undefined) =>
      outbox.queue.claimDue(clock.now(), 10, { chatMinIntervalMs: 0, perEndpoint: 4, fence });
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
    const { event } = eventEntry('race.results', {});
    await outbox.queue.enqueue({ endpointId: 'ep_1', event, body: JSON.stringify(event) });
    expect(await a.lease.acquire()).toBe(true);
    const old = a.lease.token()!;
    // a pauses past its lease; b takes it over with a newer token.
    await clock.advance(6_000);
    expect(await b.lease.acquire()).toBe(true);
    expect(await claim(old)).toBe('fenced');
    expect(await outbox.history.counts()).toMatchObject({ pending: 1, in_flight: 0 });
    const claimed = await claim(b.lease.token());
    expect(claimed).toMatchObject([{ status: 'in_flight', fence: b.lease.token() }]);
  });
});
