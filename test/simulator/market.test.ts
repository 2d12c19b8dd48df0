import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { bookOf, expectNear, expectWithin, mean, realEvent, realMarket, share } from './measure.js';
import { simMarket } from './sim-stats.js';
import { DAY, get, settableClock } from './support.js';

const MIN = 60_000;
type Rec = Record<string, unknown>;
type Runner = {
  entrant_id: string;
  is_scratched: boolean;
  odds: { fixed_win: number; pool_win?: number; pool_place?: number };
};
type Pool = { product_type: string; total: number; status: string };
type Dividend = {
  product_name: string;
  status: string;
  dividend: number;
  pool_size: number;
  positions: { runner_number: number }[];
};

describe('the market, as the real payload shows it', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let races: RaceStatic[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 12, clock, day: DAY, rateLimit: false });
    races = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned).slice(0, 300);
  });
  afterAll(() => sim.close());

  it('opens and closes with the real fixed-win book (sum of 1 / price over unscratched runners)', () => {
    const real = realMarket();
    const simulated = simMarket(sim.world, races);
    expectWithin('closing book', simulated.closingBook, real.closingBook, 0.03);
    expectWithin('opening book', simulated.openingBook, real.openingBook, 0.03);
    // The book wanders with the moves, but not far.
    expect(share(simulated.closing, (b) => b > 1.1 && b < 1.4)).toBeGreaterThan(0.95);
  });

  it('moves each price a few times, bunched in the last 30 minutes and toward the close', () => {
    const real = realMarket();
    const simulated = simMarket(sim.world, races);
    expectWithin('moves per runner', simulated.movesPerRunner, real.movesPerRunner, 0.1);
    expectNear('share of moves in the last 5 min before the close', simulated.last5, real.last5, 0.08);
    expect([real.in30, simulated.in30]).toEqual([1, 1]);
    expectWithin('mean |log price change| of a move', simulated.moveSize, real.moveSize, 0.15);
    // Now and then a price doubles or halves (41 -> 18 in the real race), but not often.
    expectNear('share of moves doubling or halving the price', simulated.bigMoves, real.bigMoves, 0.03);
  });

  it('has pool prices with the real win-pool book, moving continuously near the jump', async () => {
    const realPoolBook = bookOf(realEvent().data, 'pool_win');
    const books: number[] = [];
    for (const race of races.slice(0, 40)) {
      clock.set(sim.world.lifecycle(race.id).closeAt);
      books.push(bookOf((await get(sim, `/events/${race.id}`)).json().data, 'pool_win'));
    }
    expectWithin('pool-win book at the close', mean(books), realPoolBook, 0.03);

    const race = races.find((r) => r.runners.length >= 8) as RaceStatic;
    const life = sim.world.lifecycle(race.id);
    let previous: { total: number; prices: string } | undefined;
    let priceChanges = 0;
    let ticks = 0;
    for (let t = life.start - 10 * MIN; t < life.closeAt; t += 15_000) {
      clock.set(t);
      const d = (await get(sim, `/events/${race.id}`)).json().data;
      const total = (d.tote_pools as Pool[]).find((p) => p.product_type === 'Win')?.total as number;
      const prices = JSON.stringify((d.runners as Runner[]).map((r) => r.odds.pool_win));
      if (previous) {
        ticks++;
        expect(total).toBeGreaterThan(previous.total);
        if (prices !== previous.prices) priceChanges++;
      }
      previous = { total, prices };
    }
    expect(ticks).toBeGreaterThan(35);
    expect(priceChanges / ticks).toBeGreaterThan(0.9);
  });

  it('has the real pool set, and pays dividends at the close prices with pool_size the pool total', async () => {
    const real = realEvent().data;
    const realPools = (real.tote_pools as Pool[]).map((p) => p.product_type).sort();
    const realDividends = real.dividends as Dividend[];
    // In the real race pool_size is its pool's total, and win and place pay the pool prices.
    const productOf: Record<string, string> = {
      'Pool Win': 'Win',
      'Pool Place': 'Place',
      'Pool Quinella': 'Quinella',
      'Pool Trifecta': 'Trifecta',
      'Pool First4': 'FirstFour',
    };
    const check = (d: Rec) => {
      const totals = new Map((d.tote_pools as Pool[]).map((p) => [p.product_type, p.total]));
      for (const div of d.dividends as Dividend[])
        expect(div.pool_size).toBe(totals.get(productOf[div.product_name] as string));
      const byNumber = new Map(
        (d.runners as (Runner & { runner_number: number })[]).map((r) => [r.runner_number, r]),
      );
      for (const div of d.dividends as Dividend[]) {
        const runner = byNumber.get(div.positions[0]?.runner_number as number);
        if (div.product_name === 'Pool Win') expect(div.dividend).toBe(runner?.odds.pool_win);
        if (div.product_name === 'Pool Place') expect(div.dividend).toBe(runner?.odds.pool_place);
      }
    };
    check(real);
    const byStatus = (ds: Dividend[]) => ds.map((x) => `${x.status} ${x.product_name}`).sort();
    // Race 1 of a meeting whose early quaddie starts there, with 8 or more starters at Final: three places
    // paid, as in the real race (a scratching to 7 starters would pay two).
    const threePlaces = (r: RaceStatic) =>
      sim.world.raceView(r.id, sim.world.lifecycle(r.id).finalAt).runners.filter((x) => !x.scratched)
        .length >= 8;
    const day = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned);
    const like = day.find((r) => r.raceNumber === 1 && r.meeting.earlyQuaddie[0] === 1 && threePlaces(r));
    if (!like) throw new Error('no race like the real one');
    clock.set(sim.world.lifecycle(like.id).finalAt + MIN);
    const d = (await get(sim, `/events/${like.id}`)).json().data;
    expect((d.tote_pools as Pool[]).map((p) => p.product_type).sort()).toEqual(realPools);
    expect(byStatus(d.dividends)).toEqual(byStatus(realDividends));
    check(d);
    const other = races.find((r) => r.meeting.earlyQuaddie.length === 0 && r.meeting.quaddie.length === 0);
    if (!other) throw new Error('no race outside a quaddie');
    clock.set(sim.world.lifecycle(other.id).finalAt + MIN);
    const plain = (await get(sim, `/events/${other.id}`)).json().data;
    expect((plain.tote_pools as Pool[]).map((p) => p.product_type).sort()).toEqual(
      realPools.filter((p) => p !== 'EarlyQuadrella'),
    );
    check(plain);
  });

  it('closes the pools at the jump: totals and pool prices no longer move', async () => {
    const race = races[5] as RaceStatic;
    const life = sim.world.lifecycle(race.id);
    clock.set(life.closeAt);
    const atJump = (await get(sim, `/events/${race.id}`)).json().data;
    clock.set(life.finalAt + 10 * MIN);
    const later = (await get(sim, `/events/${race.id}`)).json().data;
    const view = (d: Rec) => [
      (d.tote_pools as Pool[]).map((p) => p.total),
      (d.runners as Runner[]).map((r) => r.odds),
    ];
    expect(view(later)).toEqual(view(atJump));
    expect((atJump.tote_pools as Pool[]).every((p) => p.status === 'CLOSED')).toBe(true);
  });
});
