/**
 * Issue 27, item 1: a Redis that loses its data starts every stream at seq 1 again, so an id made of the
 * stream and the seq alone would be re-sent as the `webhook-id` of new events, and a consumer deduping by it
 * (as Standard Webhooks tells it to) would drop them. The test runs its own redis-server (never the shared
 * one), delivers two events of a stream, wipes Redis, delivers two more of the same stream, and asserts no
 * webhook-id came twice with other content.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { createRedisOutbox } from '../../../src/delivery/webhooks/index.js';
import { createRedisEventLog } from '../../../src/store/redis/redis-event-log.js';
import { freePort } from '../../cluster/cluster-harness.js';
import { type OwnRedis, startOwnRedis } from '../../cluster/nemesis/redis-server.js';
import { describeWithRedis, requireRedisServer } from '../../support/redis.js';
import { startHarness } from './harness.js';
import { until } from './helpers.js';

describeWithRedis('webhook ids across a Redis wipe', () => {
  let own: OwnRedis;
  let redis: Redis;

  beforeAll(async () => {
    requireRedisServer();
    own = await startOwnRedis(await freePort());
    redis = new Redis(own.url, { maxRetriesPerRequest: 1 });
    // Refused connections while the server restarts are expected; commands then retry.
    redis.on('error', () => {});
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await own?.close();
  });

  it('never sends one webhook-id with two contents when the log restarts at seq 1', async () => {
    const log = createRedisEventLog({ redis });
    const clock = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
    const h = await startHarness({
      clock,
      backend: {
        store: (now) => ({ outbox: createRedisOutbox({ redis, prefix: 'racewire:', now }), feed: log.feed }),
        loops: 2,
        append: async () => [],
        loseCursor: async () => {},
        enqueue: async () => {},
        close: async () => {},
      },
    });
    try {
      const deliver = async (n: number) => {
        const stored = await log.append('r1', {
          entries: [{ kind: 'event', event: { type: 'odds.changed', meetingId: 'm1', data: { n } } }],
          now: new Date(clock.now()),
        });
        h.bus.publish(stored);
      };
      await h.createEndpoint({ eventTypes: ['*'] });
      await deliver(1);
      await deliver(2);
      await until(() => h.receiver.received.length === 2, 'two deliveries before the wipe', 10_000);

      await own.restart(false, 0);
      await until(async () => (await redis.ping().catch(() => '')) === 'PONG', 'Redis back', 10_000);
      // The endpoint went with the data; it is registered again, as an operator restoring it would.
      await h.createEndpoint({ eventTypes: ['*'] });
      await deliver(3);
      await deliver(4);
      await until(() => h.receiver.received.length === 4, 'two deliveries after the wipe', 10_000);

      const sent = h.receiver.received.map((r) => ({
        id: String(r.headers['webhook-id']),
        body: JSON.parse(r.body) as { id: string; seq: number; data: { n: number } },
      }));
      // The log did restart: the events after the wipe have the seqs of those before.
      expect(sent.map((s) => [s.body.seq, s.body.data.n])).toEqual([
        [1, 1],
        [2, 2],
        [1, 3],
        [2, 4],
      ]);
      expect(new Set(sent.map((s) => s.id)).size).toBe(4);
      for (const s of sent) expect(s.id).toBe(s.body.id);
    } finally {
      await h.close();
    }
  }, 60_000);
});
