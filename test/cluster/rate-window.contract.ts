/**
 * The request window's contract, run against every adapter (memory, Redis): handles on one window (two nodes)
 * together admit at most maxPerMinute starts in any 60 s + margin, refuse only when full, and say exactly
 * when a slot frees, all on the injected clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import type { RateWindow } from '../../src/upstream/rate-window.js';

/** A fresh window; each call of the returned function is one node's handle on it. */
export type RateWindowFactory = (opts: {
  maxPerMinute: number;
  clock: ManualClock;
  marginMs: number;
}) => Promise<() => RateWindow>;

export function rateWindowContract(name: string, fresh: RateWindowFactory): void {
  describe(`request window contract: ${name}`, () => {
    it('admits up to the limit, then says exactly when the oldest start leaves the window', async () => {
      const clock = createManualClock(1_000_000);
      const handle = await fresh({ maxPerMinute: 3, clock, marginMs: 0 });
      const [a, b] = [handle(), handle()] as [RateWindow, RateWindow];
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
            const hold = 60_000 + marginMs;
            const handle = await fresh({ maxPerMinute: max, clock, marginMs });
            const windows = [handle(), handle()];
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
          },
        ),
        { numRuns: 30 },
      );
    });

    it('makes acquire wait on the clock until a slot frees', async () => {
      const clock = createManualClock(0);
      const window = (await fresh({ maxPerMinute: 1, clock, marginMs: 0 }))();
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
