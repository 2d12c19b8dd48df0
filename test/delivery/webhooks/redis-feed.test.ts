import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import type { NewEndpoint } from '../../../src/delivery/webhooks/endpoint-store.js';
import { createRedisFeeder } from '../../../src/delivery/webhooks/redis-feed.js';
import { createRedisOutbox } from '../../../src/delivery/webhooks/redis-outbox.js';
import { redisBackends } from './backends.js';
import { eventEntry, resetSeqs, silentLogger, until } from './helpers.js';

const url = process.env.REDIS_URL;

/** The client with its scripts held at a gate: a reader that has read and planned, but not written. */
function gated(redis: Redis) {
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let reached = false;
  const proxy = new Proxy(redis, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop !== 'evalsha' && prop !== 'eval') return fn.bind(target);
      return async (...args: unknown[]) => {
        reached = true;
        await gate;
        return fn.apply(target, args);
      };
    },
  });
  return { redis: proxy, reached: () => reached, release: () => open() };
}

if (!url) {
  it.skip('Redis webhook feed: skipped because REDIS_URL is unset', () => {});
} else {
  const backends = redisBackends(url);
  const { redis } = backends;
  afterAll(() => backends.cleanup());

  const setup = async () => {
    resetSeqs();
    const prefix = backends.nextPrefix();
    const clock = createManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const outbox = createRedisOutbox({ redis, prefix, now: () => clock.now() });
    const reader = (opts: { client?: Redis; batch?: number } = {}) =>
      createRedisFeeder({
        redis: opts.client ?? redis,
        prefix,
        outbox: createRedisOutbox({ redis: opts.client ?? redis, prefix, now: () => clock.now() }),
        clock,
        logger: silentLogger,
        pollIntervalMs: 60_000,
        batch: opts.batch,
      });
    const append = async (n: number, type = 'race.results') => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const entry = eventEntry(type, {}, { raceId: `race-${i % 2}` });
        ids.push((await redis.xadd(`${prefix}feed`, '*', 'e', JSON.stringify(entry))) ?? '');
      }
      return ids;
    };
    const addEndpoint = (id: string, e: Partial<NewEndpoint> = {}) =>
      outbox.createEndpoint({
        id,
        url: `https://hooks.example.com/${id}`,
        kind: 'standard',
        description: '',
        eventTypes: ['*'],
        filters: {},
        enabled: true,
        secret: 'whsec_x',
        ...e,
      });
    const events = async (endpointId: string) =>
      (await outbox.listDeliveries(endpointId, { limit: 1000 })).map((d) => d.eventId).reverse();
    return { prefix, outbox, reader, append, addEndpoint, events };
  };

  describe('redis webhook feed', () => {
    it('enqueues each event once per matching endpoint across a crash before, or a reply lost after, its write', async () => {
      const t = await setup();
      await t.addEndpoint('ep_all');
      await t.addEndpoint('ep_results', { eventTypes: ['race.results'] });
      await t.addEndpoint('ep_off', { enabled: false });
      await t.append(2, 'race.results');
      await t.append(1, 'runner.scratched');

      // A reader reads and plans the batch, then dies before its one atomic write.
      const dying = gated(redis);
      const write = t.reader({ client: dying.redis }).feedOnce();
      await until(dying.reached, 'the first reader planned its write');
      // The restarted node reads the same batch after the same cursor.
      expect(await t.reader().feedOnce()).toEqual({ read: 3, enqueued: 5 });
      // Had the dead reader's write gone out late, it would change nothing.
      dying.release();
      expect(await write).toBe('stale');

      // A reply lost after the write: the cursor moved with the deliveries, so nothing is read again.
      expect(await t.reader().feedOnce()).toEqual({ read: 0, enqueued: 0 });
      // A lost cursor: what is still in the feed is read again, but nothing is enqueued twice.
      await redis.del(`${t.prefix}webhooks:feed-cursor`);
      expect(await t.reader().feedOnce()).toEqual({ read: 1, enqueued: 0 });

      expect(await t.events('ep_all')).toEqual(['race-0:1', 'race-1:1', 'race-0:2']);
      expect(await t.events('ep_results')).toEqual(['race-0:1', 'race-1:1']);
      expect(await t.events('ep_off')).toEqual([]);
      expect(await t.outbox.counts()).toEqual({ pending: 5, in_flight: 0, delivered: 0, failed: 0 });
    });

    it('keeps its cursor in Redis: a new reader goes on after it, a batch at a time, and the feed is trimmed', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      const first = await t.append(3);
      expect(await t.reader({ batch: 2 }).feedOnce()).toEqual({ read: 2, enqueued: 2 });
      expect(await redis.get(`${t.prefix}webhooks:feed-cursor`)).toBe(first[1]);
      expect(await t.reader({ batch: 2 }).feedOnce()).toEqual({ read: 1, enqueued: 1 });
      expect(await redis.get(`${t.prefix}webhooks:feed-cursor`)).toBe(first[2]);
      // Read entries are owed to the outbox now; the feed keeps only the one at the cursor.
      expect(await redis.xlen(`${t.prefix}feed`)).toBe(1);

      const later = await t.append(2);
      expect(await t.reader().feedOnce()).toEqual({ read: 2, enqueued: 2 });
      expect(await redis.get(`${t.prefix}webhooks:feed-cursor`)).toBe(later[1]);
      expect(await t.events('ep_a')).toEqual(['race-0:1', 'race-1:1', 'race-0:2', 'race-0:3', 'race-1:2']);
    });

    it('lets two readers run at once: every event enqueued once, in feed order', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      await t.addEndpoint('ep_b');
      await t.append(60);
      const drain = async (reader: ReturnType<typeof t.reader>) => {
        for (;;) {
          const r = await reader.feedOnce();
          if (r !== 'stale' && r.read === 0) return;
        }
      };
      await Promise.all([drain(t.reader({ batch: 7 })), drain(t.reader({ batch: 5 }))]);
      const expected = Array.from({ length: 60 }, (_, i) => `race-${i % 2}:${Math.floor(i / 2) + 1}`);
      expect(await t.events('ep_a')).toEqual(expected);
      expect(await t.events('ep_b')).toEqual(expected);
    });

    it('refuses a batch planned against endpoints that changed meanwhile, and plans it again', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      await t.append(1);
      const slow = gated(redis);
      const write = t.reader({ client: slow.redis }).feedOnce();
      await until(slow.reached, 'planned with ep_a enabled');
      await t.outbox.disableEndpoint('ep_a', 'by hand');
      slow.release();
      expect(await write).toBe('stale');
      expect(await t.reader().feedOnce()).toEqual({ read: 1, enqueued: 0 });
      expect(await t.events('ep_a')).toEqual([]);
    });
  });
}
