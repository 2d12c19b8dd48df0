import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../src/clock.js';
import { createLease } from '../../src/cluster/lease.js';

const url = process.env.REDIS_URL;

if (!url) {
  it.skip('Redis lease: skipped because REDIS_URL is unset', () => {});
} else {
  describe('redis lease', () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    const runPrefix = `racewire-test:${randomUUID()}:`;
    let n = 0;
    const nextKey = () => `${runPrefix}lease-${++n}`;
    afterAll(async () => {
      const stale = await redis.keys(`${runPrefix}*`);
      if (stale.length > 0) await redis.del(...stale);
      await redis.quit();
    });

    it('lets exactly one of two contenders hold the lease', async () => {
      const key = nextKey();
      const a = createLease({ redis, key, nodeId: 'a', ttlMs: 10_000, clock: systemClock });
      const b = createLease({ redis, key, nodeId: 'b', ttlMs: 10_000, clock: systemClock });
      const won = await Promise.all([a.acquire(), b.acquire()]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect([a.isLeader(), b.isLeader()]).toEqual(won);
      const leader = won[0] ? a : b;
      const other = won[0] ? b : a;
      expect(leader.token()).toBe(1);
      expect(other.token()).toBeUndefined();
      expect(await other.acquire()).toBe(false);
      expect(await other.renew()).toBe(false);
      expect(await leader.renew()).toBe(true);
    });

    it('issues a strictly greater token on every acquisition', async () => {
      const key = nextKey();
      const a = createLease({ redis, key, nodeId: 'a', ttlMs: 10_000, clock: systemClock });
      const b = createLease({ redis, key, nodeId: 'b', ttlMs: 10_000, clock: systemClock });
      const tokens: Array<number | undefined> = [];
      for (const lease of [a, b, a, b]) {
        expect(await lease.acquire()).toBe(true);
        tokens.push(lease.token());
        await lease.release();
        expect(lease.isLeader()).toBe(false);
      }
      expect(tokens).toEqual([1, 2, 3, 4]);
    });

    it('keeps the same token when the holder acquires again', async () => {
      const a = createLease({ redis, key: nextKey(), nodeId: 'a', ttlMs: 10_000, clock: systemClock });
      await a.acquire();
      await a.acquire();
      expect(a.token()).toBe(1);
    });

    it('stops trusting its holding once ttl has passed on its clock without a renew', async () => {
      const clock = createManualClock(1_000);
      const a = createLease({ redis, key: nextKey(), nodeId: 'a', ttlMs: 10_000, clock });
      await a.acquire();
      await clock.advance(9_999);
      expect(a.token()).toBe(1);
      await clock.advance(1);
      expect([a.isLeader(), a.token()]).toEqual([false, undefined]);
    });

    it('hands the lease to another node within ttl plus one renew interval when the holder stops renewing', async () => {
      const key = nextKey();
      const ttlMs = 300;
      const a = createLease({ redis, key, nodeId: 'a', ttlMs, clock: systemClock });
      const b = createLease({ redis, key, nodeId: 'b', ttlMs, clock: systemClock });
      expect(await a.acquire()).toBe(true);
      const since = Date.now();
      const acquired = new Promise<number>((resolve) => {
        const stop = b.run(
          (token) => {
            resolve(token);
            void stop();
          },
          () => {},
        );
      });
      const token = await acquired;
      const took = Date.now() - since;
      expect(token).toBe(2);
      expect(took).toBeGreaterThanOrEqual(ttlMs - 20);
      // Within ttl + one renew interval, with room for timer and round-trip latency on a busy CI machine.
      expect(took).toBeLessThanOrEqual(ttlMs + ttlMs / 3 + 100);
    });

    it('renews while running, reports the loss when the key is taken away, and releases on stop', async () => {
      const key = nextKey();
      const ttlMs = 150;
      const a = createLease({ redis, key, nodeId: 'a', ttlMs, clock: systemClock });
      const seen: string[] = [];
      let lost!: () => void;
      const lostP = new Promise<void>((r) => {
        lost = r;
      });
      let acquired!: () => void;
      const acquiredP = new Promise<void>((r) => {
        acquired = r;
      });
      const stop = a.run(
        (t) => {
          seen.push(`acquired ${t}`);
          acquired();
        },
        () => {
          seen.push('lost');
          lost();
        },
      );
      await acquiredP;
      // Three ttls of renewals keep it.
      await systemClock.sleep(3 * ttlMs);
      expect(a.isLeader()).toBe(true);
      await redis.set(key, 'someone-else|99', 'PX', 10_000);
      await lostP;
      expect(a.isLeader()).toBe(false);
      await redis.del(key);
      await stop();
      expect(seen.slice(0, 2)).toEqual(['acquired 1', 'lost']);
      expect(await redis.exists(key)).toBe(0);
    });
  });
}
