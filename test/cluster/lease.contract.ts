/**
 * The lease's contract, run against every store (memory, Redis), on a manual clock: one holder at a time,
 * strictly increasing tokens, hand-over once the holder stops renewing, losses reported, and resigning after
 * a fenced write.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import type { Lease } from '../../src/cluster/lease-loop.js';

/** A fresh lease; each call of the returned function is one node's handle on it. */
export type LeaseFactory = () => Promise<{
  node: (nodeId: string, ttlMs: number, clock: ManualClock) => Lease;
  /** Takes the lease from whoever holds it, as an operator (or a Redis restart) would. */
  takeAway(): Promise<void>;
}>;

/** Waits until every run loop on `clock` is asleep on it (its store calls answered). */
async function asleep(clock: ManualClock, loops = 1): Promise<void> {
  while (clock.pending() < loops) await new Promise<void>((r) => setImmediate(r));
}

/** Moves the clock by `ms` once the loop is asleep, so each of its steps sees the time it was due at. */
async function step(clock: ManualClock, ms: number): Promise<void> {
  await asleep(clock);
  await clock.advance(ms);
}

export function leaseContract(name: string, fresh: LeaseFactory): void {
  describe(`lease contract: ${name}`, () => {
    it('lets exactly one of two contenders hold the lease', async () => {
      const clock = createManualClock(1_000);
      const lease = await fresh();
      const a = lease.node('a', 10_000, clock);
      const b = lease.node('b', 10_000, clock);
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

    it('issues a strictly greater token on every acquisition, and keeps it when the holder acquires again', async () => {
      const clock = createManualClock(1_000);
      const lease = await fresh();
      const a = lease.node('a', 10_000, clock);
      const b = lease.node('b', 10_000, clock);
      const tokens: Array<number | undefined> = [];
      for (const l of [a, b, a, b]) {
        expect(await l.acquire()).toBe(true);
        tokens.push(l.token());
        await l.release();
        expect(l.isLeader()).toBe(false);
      }
      expect(tokens).toEqual([1, 2, 3, 4]);
      await a.acquire();
      await a.acquire();
      expect(a.token()).toBe(5);
    });

    it('stops trusting its holding once ttl has passed on its clock without a renew', async () => {
      const clock = createManualClock(1_000);
      const a = (await fresh()).node('a', 10_000, clock);
      await a.acquire();
      await clock.advance(9_999);
      expect(a.token()).toBe(1);
      await clock.advance(1);
      expect([a.isLeader(), a.token()]).toEqual([false, undefined]);
    });

    it('hands the lease to another node within ttl plus one renew interval of the holder stopping', async () => {
      const clock = createManualClock(0);
      const lease = await fresh();
      const a = lease.node('a', 300, clock);
      const b = lease.node('b', 300, clock);
      expect(await a.acquire()).toBe(true);
      let acquiredAt: number | undefined;
      const stop = b.run(
        (token) => {
          expect(token).toBe(2);
          acquiredAt = clock.now();
        },
        () => {},
      );
      // a never renews; b tries every 100 ms.
      for (let t = 0; t < 500 && acquiredAt === undefined; t += 50) await step(clock, 50);
      await stop();
      expect(acquiredAt).toBeGreaterThanOrEqual(300);
      expect(acquiredAt).toBeLessThanOrEqual(300 + 100);
    });

    it('renews while running, reports the loss when the lease is taken away, and releases on stop', async () => {
      const clock = createManualClock(0);
      const lease = await fresh();
      const a = lease.node('a', 150, clock);
      const seen: string[] = [];
      const stop = a.run(
        (t) => seen.push(`acquired ${t}`),
        () => seen.push('lost'),
      );
      // Three ttls of renewals keep it.
      for (let i = 0; i < 9; i++) await step(clock, 50);
      expect(a.isLeader()).toBe(true);
      await lease.takeAway();
      for (let i = 0; i < 3 && !seen.includes('lost'); i++) await step(clock, 50);
      expect(seen.slice(0, 2)).toEqual(['acquired 1', 'lost']);
      await stop();
      const other = lease.node('b', 150, clock);
      expect(await other.acquire()).toBe(true);
    });

    it('resigns after a fenced write: reports the loss, then holds again with a new token', async () => {
      const clock = createManualClock(0);
      const lease = await fresh();
      const a = lease.node('a', 3_000, clock);
      const seen: string[] = [];
      const stop = a.run(
        (t) => seen.push(`acquired ${t}`),
        () => seen.push('lost'),
      );
      await asleep(clock);
      a.resign();
      await asleep(clock);
      expect(seen).toEqual(['acquired 1', 'lost', 'acquired 2']);
      expect(a.token()).toBe(2);
      await stop();
    });
  });
}
