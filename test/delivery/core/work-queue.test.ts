/** Subscription work (work-queue.ts): arrival order, one failure never stops the rest, a budget per turn. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../src/delivery/core/work-queue.js';

describe('subscription work queue', () => {
  it('runs work on a later turn, in arrival order, and reports a failure without dropping what follows', async () => {
    const errors: unknown[] = [];
    const q = new WorkQueue((err) => errors.push(err));
    const ran: number[] = [];
    q.push(() => ran.push(1));
    q.push(() => {
      throw new Error('boom');
    });
    q.push(() => ran.push(3));
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual([1, 3]);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('leaves the rest for the next turn once a turn has spent its budget', async () => {
    const q = new WorkQueue(() => {});
    const ran: number[] = [];
    // Each item outlasts the whole budget (4 ms), so each turn runs exactly one; a slower machine only
    // makes each item longer.
    const slow = (n: number) => () => {
      const until = performance.now() + 5;
      while (performance.now() < until) {}
      ran.push(n);
    };
    for (let n = 1; n <= 3; n++) q.push(slow(n));
    await nextTurn();
    expect(ran).toEqual([1]);
    await nextTurn();
    expect(ran).toEqual([1, 2]);
    await nextTurn();
    expect(ran).toEqual([1, 2, 3]);
  });
});
