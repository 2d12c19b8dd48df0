import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { bookOf, expectWithin, quantile, realEvent, SECOND_REAL_FINAL } from './measure.js';
import { DAY, get, settableClock } from './support.js';

type Runner = {
  is_scratched: boolean;
  odds: { fixed_win?: number; fixed_place?: number; pool_place?: number } | null;
};
type Payload = { race: { positions_paid: number }; runners: Runner[] };

/**
 * The place pricing of one /events payload, measured the same way on the real and the simulated ones:
 * - the fixed win-to-place divisor, (win - 1) / (place - 1), of each unscratched runner priced at most 15
 *   (longer shots are priced shallower, in the real payload too: 41 -> 7.5);
 * - the pool-place book, the sum of 1 / pool_place over unscratched runners (when each has one).
 */
function placePricing(d: Payload) {
  const live = d.runners.filter((r) => !r.is_scratched && r.odds);
  const divisors = live
    .filter((r) => (r.odds?.fixed_win ?? 99) <= 15 && (r.odds?.fixed_place ?? 0) > 1)
    .map((r) => ((r.odds?.fixed_win as number) - 1) / ((r.odds?.fixed_place as number) - 1));
  const priced = live.every((r) => r.odds?.pool_place);
  return {
    paid: d.race.positions_paid,
    divisors,
    book: priced ? bookOf(d as unknown as Record<string, unknown>, 'pool_place') : null,
  };
}

describe('place pricing, as the real payload shows it', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  const simulated: ReturnType<typeof placePricing>[] = [];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 8, clock, day: DAY, rateLimit: false });
    const races = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned).slice(0, 120);
    for (const race of races) {
      clock.set(sim.world.lifecycle(race.id).finalAt + 1);
      simulated.push(placePricing((await get(sim, `/events/${race.id}`)).json().data as Payload));
    }
  });
  afterAll(() => sim.close());

  it('prices fixed place at the real divisor: 5 with three places paid, 7.7 with two', () => {
    const real = placePricing(realEvent().data as unknown as Payload);
    expect(real.paid).toBe(3);
    const realDivisor = quantile(real.divisors, 0.5);
    expect(realDivisor).toBeCloseTo(5, 5);
    const median = (paid: number) =>
      quantile(
        simulated.filter((s) => s.paid === paid).flatMap((s) => s.divisors),
        0.5,
      );
    expectWithin('fixed divisor, 3 paid', median(3), realDivisor, 0.15);
    // Two places paid: the second real payload's figure (typed in from issue 22, not shipped).
    expectWithin('fixed divisor, 2 paid', median(2), SECOND_REAL_FINAL.fixedPlaceDivisor, 0.15);
  });

  it('has the real pool-place book with three places paid (3.67)', () => {
    const real = placePricing(realEvent().data as unknown as Payload);
    expect(real.book).toBeCloseTo(3.674, 3);
    const books = simulated.filter((s) => s.paid === 3 && s.book !== null).map((s) => s.book as number);
    expect(books.length).toBeGreaterThan(30);
    expectWithin('pool-place book, 3 paid', quantile(books, 0.5), real.book as number, 0.15);
  });
});
