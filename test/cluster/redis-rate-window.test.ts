import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createRedisRateWindow } from '../../src/upstream/redis-rate-window.js';

const url = process.env.REDIS_URL;

if (!url) {
  it.skip('Redis rate window: skipped because REDIS_URL is unset', () => {});
} else {
  describe('redis rate window', () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    const runPrefix = `racewire-test:${randomUUID()}:`;
    let n = 0;
    const nextKey = () => `${runPrefix}window-${++n}`;
    afterAll(async () => {
      const stale = await redis.keys(`${runPrefix}*`);
      if (stale.length > 0) await redis.del(...stale);
      await redis.quit();
    });

    it('admits up to the limit, then says exactly when the oldest start leaves the window', async () => {
      const clock = createManualClock(1_000_000);
      const key = nextKey();
      const a = createRedisRateWindow({ redis, key, maxPerMinute: 3, clock, marginMs: 0 });
      const b = createRedisRateWindow({ redis, key, maxPerMinute: 3, clock, marginMs: 0 });
      expect(await a.tryAcquire()).toEqual({ admitted: true });
      await clock.advance(10_000);
      expect(await b.tryAcquire()).toEqual({ admitted: true });
      expect(await a.tryAcquire()).toEqual({ admitted: true });
      expect(await b.tryAcquire()).toEqual({ admitted: false, retryInMs: 50_000 });
      expect(await a.stats()).toEqual({ used: 3, limit: 3, nextFreeInMs: 50_000 });
      await clock.advance(50_000);
      expect(await b.stats()).toEqual({ used: 2, limit: 3, nextFreeInMs: 0 });
      expect(await b.tryAcquire()).toEqual({ admitted: true });
    });

    it('holds each start a margin past 60 s (1 s by default) before giving its slot again', async () => {
      const clock = createManualClock(0);
      const window = createRedisRateWindow({ redis, key: nextKey(), maxPerMinute: 1, clock });
      expect(await window.tryAcquire()).toEqual({ admitted: true });
      await clock.advance(60_000);
      expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 1_000 });
      await clock.advance(1_000);
      expect(await window.tryAcquire()).toEqual({ admitted: true });
    });

    it('never lets two windows on one key admit more than maxPerMinute in any 60 s + margin, and refuses only when full', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 2_000 }),
          fc.integer({ min: 1, max: 6 }),
          fc.array(fc.tuple(fc.integer({ min: 0, max: 25_000 }), fc.boolean()), {
            minLength: 1,
            maxLength: 60,
          }),
          async (marginMs, max, steps) => {
            const clock = createManualClock(5_000_000);
            const key = nextKey();
            const hold = 60_000 + marginMs;
            const windows = [true, false].map(() =>
              createRedisRateWindow({ redis, key, maxPerMinute: max, clock, marginMs }),
            );
            const admitted: number[] = [];
            for (const [gap, first] of steps) {
              await clock.advance(gap);
              const now = clock.now();
              const inWindow = admitted.filter((t) => t > now - hold);
              const answer = await windows[first ? 0 : 1]!.tryAcquire();
              if (inWindow.length < max) expect(answer).toEqual({ admitted: true });
              else expect(answer).toEqual({ admitted: false, retryInMs: inWindow[0]! + hold - now });
              if (answer.admitted) admitted.push(now);
            }
            for (const t of admitted) {
              expect(admitted.filter((u) => u >= t && u < t + hold).length).toBeLessThanOrEqual(max);
            }
            await redis.del(key);
          },
        ),
        { numRuns: 30 },
      );
    });

    it('makes acquire wait on the clock until a slot frees', async () => {
      const clock = createManualClock(0);
      const window = createRedisRateWindow({ redis, key: nextKey(), maxPerMinute: 1, clock, marginMs: 0 });
      await window.acquire();
      let done = false;
      const waiting = window.acquire().then(() => {
        done = true;
      });
      while (clock.pending() === 0) await new Promise((r) => setImmediate(r));
      await clock.advance(59_999);
      expect(done).toBe(false);
      await clock.advance(1);
      while (!done) await new Promise((r) => setImmediate(r));
      await waiting;
      expect(clock.now()).toBe(60_000);
    });
  });
}
