/**
 * The bus's subscription across reconnections, on a redis-server of the test's own (its ACLs change): a
 * SUBSCRIBE refused after a reconnection is reported to `onError`, never left as an unhandled rejection (as
 * ioredis's own resubscribe leaves it, ioredis#2187), and the bus subscribes again on the next reconnection.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisBus } from '../../src/bus/redis-bus.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { freePort } from '../cluster/cluster-harness.js';
import { type OwnRedis, startOwnRedis } from '../cluster/nemesis/redis-server.js';
import { until } from '../e2e/harness.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { busEntry } from './bus.contract.js';

describeWithRedis('the Redis bus subscribes again itself', () => {
  let redis: OwnRedis;
  let admin: Redis;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const channel = 'racewire:entries';

  beforeAll(async () => {
    requireRedisServer();
    process.on('unhandledRejection', onUnhandled);
    redis = await startOwnRedis(await freePort());
    admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // The subscriber logs in as a user whose channel permission the test takes away and gives back.
    await admin.acl('SETUSER', 'sub', 'on', '>pw', '~*', '+@all', `&${channel}`);
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis?.close();
    process.off('unhandledRejection', onUnhandled);
  });

  it('reports a refused resubscribe, and delivers again after the next reconnection', async () => {
    const pub = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const sub = new Redis(redis.url.replace('//', '//sub:pw@'), { maxRetriesPerRequest: 1 });
    sub.on('error', () => {});
    const errors: unknown[] = [];
    const bus = createRedisBus({ pub, sub, channel, nodeId: 'b', onError: (e) => errors.push(e) });
    const otherSub = new Redis(redis.url);
    const other = createRedisBus({ pub, sub: otherSub, channel, nodeId: 'a' });
    await bus.ready;
    const got: LogEntry[][] = [];
    bus.subscribe((entries) => got.push(entries));

    await admin.acl('SETUSER', 'sub', 'resetchannels');
    await admin.client('KILL', 'USER', 'sub');
    await until(() => errors.some((e) => String(e).includes('NOPERM')) || undefined, 'the refusal reported');
    await admin.acl('SETUSER', 'sub', `&${channel}`);
    await admin.client('KILL', 'USER', 'sub');
    await until(async () => {
      other.publish([busEntry('r1', 1)]);
      return got.length > 0 || undefined;
    }, 'a batch from the other node');

    expect(got[0]).toEqual([busEntry('r1', 1)]);
    expect(unhandled).toEqual([]);
    await bus.close();
    await other.close();
    pub.disconnect();
    sub.disconnect();
    otherSub.disconnect();
  });
});
