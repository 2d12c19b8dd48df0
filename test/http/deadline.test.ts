import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { lastKnown, withinDeadline } from '../../src/http/deadline.js';

describe('answers within a deadline', () => {
  it('answers the value when it comes in time, late when it does not', async () => {
    const wall = createManualClock();
    expect(await withinDeadline(Promise.resolve(3), 100, wall)).toEqual({ late: false, value: 3 });
    const never = withinDeadline(new Promise<number>(() => {}), 100, wall);
    await wall.advance(100);
    expect(await never).toEqual({ late: true });
    expect(wall.pending()).toBe(0); // the deadline's timer does not outlive an answer
  });

  it('keeps the last figure for a late or failed read, with one read in flight at a time', async () => {
    const wall = createManualClock();
    let reads = 0;
    let answer: (n: number) => void = () => {};
    let next: () => Promise<number> = async () => 5;
    const depth = lastKnown(
      () => {
        reads++;
        return next();
      },
      { initial: 0, deadlineMs: 300, wall },
    );
    expect(await depth.get()).toEqual({ value: 5, stale: false });

    next = () => new Promise<number>((resolve) => (answer = resolve));
    const late = [depth.get(), depth.get()];
    await wall.advance(300);
    expect(await Promise.all(late)).toEqual([
      { value: 5, stale: true },
      { value: 5, stale: true },
    ]);
    expect(reads).toBe(2); // the two scrapes shared the read still waiting on the store
    answer(9);
    expect(await depth.get()).toEqual({ value: 9, stale: false });
    expect(reads).toBe(2);

    next = async () => {
      throw new Error('Command timed out');
    };
    expect(await depth.get()).toEqual({ value: 9, stale: true });
  });
});
