import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { outsideMoverFrom } from '../../src/simulator/outsiders.js';
import { expectNear, expectWithin, moneyFigures, moneyOf, realEvent, share } from './measure.js';
import { eventsAt, likeTheRealRace } from './sim-stats.js';
import { DAY, get, settableClock } from './support.js';

const MIN = 60_000;
type Rec = Record<string, unknown>;
type Row = { entrant_id: string; hold_percentage: number; bet_percentage: number };
type Bet = {
  title: string;
  description: string[];
  stake: number;
  legs: Rec[];
  place_time: string;
  place_odds: number;
};
const ALL =
  'with_big_bets=true&with_live_bets=true&with_biggest_bet=true&with_money_tracker=true&with_will_pays=true&with_tote_trends_data=true';

describe('the with_* options of /events, by their official names', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let race: RaceStatic;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 14, clock, day: DAY, rateLimit: false });
    race = sim.world.races.find(
      (r) =>
        r.meeting.dayKey === DAY &&
        !r.abandoned &&
        r.meeting.earlyQuaddie.includes(r.raceNumber) &&
        r.runners.length >= 8,
    ) as RaceStatic;
  });
  afterAll(() => sim.close());
  const event = async (query: string) => (await get(sim, `/events/${race.id}?${query}`)).json();

  it('fills each member only when asked, null otherwise, and echoes the options as the real request', async () => {
    const real = realEvent();
    clock.set(sim.world.lifecycle(race.id).closeAt - 2 * MIN);
    const plain = await event('enc=json');
    for (const key of ['big_bets', 'live_bets', 'biggest_bet', 'money_tracker'])
      expect([key, plain.data[key]]).toEqual([key, null]);
    // bet_type_filter not sent is echoed as "" (issue 22's second real payload).
    expect(plain.params.bet_type_filter).toBe('');
    // The real request: money tracker, tote trends and will-pays on, bets off.
    const realQuery = (real.header.url as string).split('?')[1] as string;
    const asReal = await event(realQuery);
    expect(Object.keys(asReal.params)).toEqual(Object.keys(real.params));
    expect({ ...asReal.params, id: 'x' }).toEqual({ ...real.params, id: 'x' });
    for (const key of ['big_bets', 'live_bets', 'biggest_bet'])
      expect([key, asReal.data[key]]).toEqual([key, real.data[key]]);
    expect(Object.keys(asReal.data.money_tracker)).toEqual(['entrants']);
    const pools = (d: Rec) => new Map((d.tote_pools as Rec[]).map((p) => [p.product_type, Object.keys(p)]));
    // Tote trends on the trifecta, first four and multi-leg pools, will-pays on the multi-leg pool and
    // quinella approximates on the quinella, as in the real payload.
    const realPools = pools(real.data);
    const simPools = pools(asReal.data);
    for (const [product, keys] of realPools) {
      for (const member of ['tote_trends', 'will_pays', 'qla_odds']) {
        expect([product, member, simPools.get(product)?.includes(member)]).toEqual([
          product,
          member,
          keys.includes(member),
        ]);
      }
    }
    const off = pools(plain.data);
    for (const keys of off.values())
      expect(keys.some((k) => ['tote_trends', 'will_pays', 'qla_odds'].includes(k))).toBe(false);
  });

  it('ignores the seed spec name will_pays, as the live API does', async () => {
    clock.set(sim.world.lifecycle(race.id).closeAt - 2 * MIN);
    const body = await event('will_pays=true');
    expect(body.params.will_pays).toBe(false);
    expect((body.data.tote_pools as Rec[]).some((p) => 'will_pays' in p)).toBe(false);
  });

  it('shapes the money tracker like the real one: rows repeated per market, percentages of the whole race', async () => {
    const realData = realEvent().data;
    const real = moneyFigures([moneyOf(realData)]);
    const races = likeTheRealRace(sim.world, DAY).slice(0, 20);
    const payloads = await eventsAt(
      sim,
      clock,
      races,
      (r) => sim.world.lifecycle(r.id).finalAt,
      'with_money_tracker=true',
    );
    const simulated = moneyFigures(payloads.map((p) => moneyOf(p.data)));
    const realRow = Object.keys((moneyOf(realData).rows[0] ?? {}) as object);
    for (const p of payloads) {
      for (const row of moneyOf(p.data).rows) {
        expect(Object.keys(row)).toEqual(realRow);
        expect(Number.isInteger(row.hold_percentage) && Number.isInteger(row.bet_percentage)).toBe(true);
      }
    }
    expectWithin('rows per 8-runner race', simulated.rows, real.rows, 0.1);
    expectNear('share of 0/0 rows', simulated.zeroRows, real.zeroRows, 0.1);
    expectWithin('sum of hold_percentage', simulated.holdSum, real.holdSum, 0.08);
    expectWithin('sum of bet_percentage', simulated.betSum, real.betSum, 0.08);
    // Entrants of other markets: the real race has 3 rows of them (issue 22's second payload 3 to 5).
    expect(Math.min(...simulated.foreignRows)).toBeGreaterThanOrEqual(real.foreignRows[0] as number);
    expect(Math.max(...simulated.foreignRows)).toBeLessThanOrEqual(5);
  });

  it('moves the money tracker with the tote, keeping its rows in order', async () => {
    const life = sim.world.lifecycle(race.id);
    clock.set(life.start - 10 * MIN);
    const a = (await event('with_money_tracker=true')).data.money_tracker.entrants as Row[];
    clock.set(life.start - 10 * MIN + 15_000);
    const b = (await event('with_money_tracker=true')).data.money_tracker.entrants as Row[];
    expect(b.map((x) => x.entrant_id)).toEqual(a.map((x) => x.entrant_id));
    expect(b).not.toEqual(a);
  });

  it('moves the money tracker as cumulative money moves: a few points a tick, not a fresh draw', async () => {
    // A runner's share is the sum of its rows; over the last 30 minutes, tick by tote tick (15 s).
    const life = sim.world.lifecycle(race.id);
    const shares: Map<string, number>[] = [];
    for (let t = life.start - 30 * MIN; t < life.closeAt; t += 15_000) {
      clock.set(t);
      const rows = (await event('with_money_tracker=true')).data.money_tracker.entrants as Row[];
      const byRunner = new Map<string, number>();
      for (const r of rows) byRunner.set(r.entrant_id, (byRunner.get(r.entrant_id) ?? 0) + r.hold_percentage);
      shares.push(byRunner);
    }
    const steps: number[] = [];
    for (let i = 1; i < shares.length; i++)
      for (const [id, now] of shares[i] as Map<string, number>)
        steps.push(Math.abs(now - ((shares[i - 1] as Map<string, number>).get(id) ?? now)));
    steps.sort((x, y) => x - y);
    expect(steps[Math.floor(steps.length * 0.95)]).toBeLessThanOrEqual(3);
  });

  it('lists bets in the description Bet shape, placed by now and before the close, newest first', async () => {
    const life = sim.world.lifecycle(race.id);
    const bets = sim.world.bets(race.id);
    expect(bets.every((b) => b.at < life.closeAt)).toBe(true);
    const t = life.start - 3 * MIN;
    clock.set(t);
    const d = (await event(ALL)).data;
    const placed = bets.filter((b) => b.at <= t);
    expect(d.live_bets).toHaveLength(Math.min(10, placed.length));
    const times = (d.live_bets as Bet[]).map((b) => Date.parse(b.place_time.replace(/000000Z$/, 'Z')));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(times.every((x) => x <= t)).toBe(true);
    for (const b of [...d.live_bets, ...d.big_bets, d.biggest_bet] as Bet[]) {
      expect(Object.keys(b)).toEqual(['title', 'description', 'stake', 'legs', 'place_time', 'place_odds']);
      for (const leg of b.legs as {
        race: Rec;
        selections: { position: number; entrants: Rec[] }[] | null;
      }[]) {
        expect(Object.keys(leg.race).slice(0, 4)).toEqual([
          'meeting_name',
          'race_name',
          'race_number',
          'product_type_name',
        ]);
        for (const s of leg.selections ?? []) {
          for (const e of s.entrants)
            expect(Object.keys(e)).toEqual([
              'entrant_id',
              'entrant_name',
              'entrant_number',
              'entrant_barrier',
            ]);
        }
      }
    }
    expect((d.big_bets as Bet[]).every((b) => b.stake >= 500)).toBe(true);
    expect((d.biggest_bet as Bet).stake).toBe(Math.max(...placed.map((b) => b.stake)));
    clock.set(life.finalAt);
    const after = (await event(ALL)).data;
    expect(after.live_bets).toHaveLength(Math.min(10, bets.length));
  });

  it('makes big bets plausible: heavy-tailed stakes, near the jump, on the shorter prices, before firms', () => {
    const all = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned).slice(0, 200);
    const big = all.flatMap((r) =>
      sim.world
        .bets(r.id)
        .filter((b) => b.big)
        .map((b) => ({ race: r, bet: b })),
    );
    expect(big.length).toBeGreaterThan(500);
    const stakes = big.map((x) => x.bet.stake).sort((a, b) => a - b);
    // Pareto: the median near $770, a long tail.
    expect(stakes[Math.floor(stakes.length / 2)]).toBeGreaterThan(600);
    expect(stakes.at(-1)).toBeGreaterThan(10_000);
    const near = share(big, (x) => sim.world.lifecycle(x.race.id).start - x.bet.at < 15 * MIN);
    expect(near).toBeGreaterThan(0.6);
    // On the shorter half of the field more often than not.
    const shorter = share(
      big.filter((x) => x.bet.product === 'Fixed Win'),
      (x) => {
        const prices = [...sim.world.stateAt(x.race.id, x.bet.at).state.runners.values()]
          .map((s) => s.fixedWin)
          .sort((a, b) => a - b);
        return x.bet.odds <= (prices[Math.floor(prices.length / 2)] as number);
      },
    );
    expect(shorter).toBeGreaterThan(0.6);
    // Money that moves the market: most late firms of 8 % or more follow a big win bet on that runner.
    let firms = 0;
    let followed = 0;
    for (const r of all) {
      const life = sim.world.lifecycle(r.id);
      const bets = sim.world.bets(r.id);
      for (const runner of sim.world.stateAt(r.id, life.closeAt).state.runners.values()) {
        runner.flucs.slice(1).forEach((f, i) => {
          const before = (runner.flucs[i] as { win: number }).win;
          if (f.at < life.start - 30 * MIN || f.win > before * 0.92) return;
          firms++;
          if (
            bets.some(
              (b) =>
                b.big &&
                b.product === 'Fixed Win' &&
                b.odds === before &&
                b.at < f.at &&
                b.at >= f.at - 90_000,
            )
          )
            followed++;
        });
      }
    }
    expect(firms).toBeGreaterThan(200);
    expect(followed / firms).toBeGreaterThan(0.5);
  });

  it('flags the favourite (shortest price) and the mover (biggest rise in chance since the open), as the real payload', async () => {
    const check = (d: Rec) => {
      const runners = (
        d.runners as {
          entrant_id: string;
          is_scratched: boolean;
          favourite: boolean;
          mover: boolean;
          odds: { fixed_win: number };
          flucs: number[];
        }[]
      ).filter((r) => !r.is_scratched);
      const fav = runners.reduce((a, b) => (b.odds.fixed_win < a.odds.fixed_win ? b : a));
      const gain = (r: (typeof runners)[0]) => 1 / r.odds.fixed_win - 1 / (r.flucs[0] as number);
      const mover = runners.reduce((a, b) => (gain(b) > gain(a) ? b : a));
      expect(runners.filter((r) => r.favourite).map((r) => r.entrant_id)).toEqual([fav.entrant_id]);
      expect(runners.filter((r) => r.mover).map((r) => r.entrant_id)).toEqual([mover.entrant_id]);
      // The favourite record itself says favourite: false, as the real one.
      expect(d.favourite as Rec).toMatchObject({ entrant_id: fav.entrant_id, favourite: false });
      expect(d.mover as Rec).toMatchObject({ entrant_id: mover.entrant_id, mover: true });
    };
    check(realEvent().data);
    // A race whose mover stays in the field (in the other half it leaves it: outsiders.test.ts).
    const inField = sim.world.races.find(
      (r) =>
        r.meeting.dayKey === DAY &&
        !r.abandoned &&
        outsideMoverFrom(14, r, sim.world.lifecycle(r.id).start) === null,
    ) as RaceStatic;
    clock.set(sim.world.lifecycle(inField.id).finalAt);
    check((await get(sim, `/events/${inField.id}`)).json().data);
  });

  it('gives a late scratching a deduction and the tote favourite as the win-pool substitute', async () => {
    const real = realEvent().data;
    // The real substitute is the runner with the lowest pool_win (the tote favourite).
    const toteFavourite = (d: Rec) =>
      (d.runners as { entrant_id: string; is_scratched: boolean; odds: { pool_win: number } }[])
        .filter((r) => !r.is_scratched)
        .reduce((a, b) => (b.odds.pool_win < a.odds.pool_win ? b : a)).entrant_id;
    expect(real.substitutions).toEqual([
      { entrant_id: toteFavourite(real), tote: 'NZ', product_name: 'Pool Win' },
    ]);
    const life = sim.world.lifecycle(race.id);
    clock.set(life.start - 20 * MIN);
    const runner = sim.world.raceView(race.id).runners.find((r) => !r.scratched) as {
      entrantId: string;
      fixedWin: number;
    };
    sim.world.scratch(race.id, runner.entrantId, { late: true });
    const d = (await event('enc=json')).data;
    const scratched = (d.runners as Rec[]).find((r) => r.entrant_id === runner.entrantId) as Rec;
    expect(scratched.deduction).toEqual({
      win: Math.min(75, Math.round(100 / runner.fixedWin)),
      place: expect.any(Number),
    });
    expect((d.runners as Rec[]).filter((r) => 'deduction' in r)).toHaveLength(1);
    expect(d.substitutions).toEqual([{ entrant_id: toteFavourite(d), tote: 'NZ', product_name: 'Pool Win' }]);
    // Its stale fixed odds stay, its pool prices go.
    expect(Object.keys(scratched.odds as Rec)).toEqual(['fixed_win', 'fixed_place']);
    // An early scratching carries no deduction.
    const other = sim.world.raceView(race.id).runners.find((r) => !r.scratched) as { entrantId: string };
    sim.world.scratch(race.id, other.entrantId, { late: false });
    const after = (await event('enc=json')).data;
    expect(
      ((after.runners as Rec[]).find((r) => r.entrant_id === other.entrantId) as Rec).deduction,
    ).toBeUndefined();
  });

  it('takes no bet on a runner once it is scratched, and leaves the bets already placed as they were', async () => {
    const life = sim.world.lifecycle(race.id);
    clock.set(life.start - 15 * MIN);
    const bets = (d: Rec) => [...(d.live_bets as Bet[]), ...(d.big_bets as Bet[])];
    const before = (await event(ALL)).data;
    const runner = sim.world.raceView(race.id).runners.find((r) => !r.scratched) as {
      entrantId: string;
      name: string;
    };
    const scratchedAt = clock.now();
    sim.world.scratch(race.id, runner.entrantId, { late: true });
    expect(bets((await event(ALL)).data)).toEqual(bets(before));
    let seen = 0;
    for (let t = scratchedAt; t < life.closeAt; t += MIN) {
      clock.set(t);
      for (const b of bets((await event(ALL)).data)) {
        if (Date.parse(b.place_time.replace(/000000Z$/, 'Z')) <= scratchedAt) continue;
        seen++;
        expect(b.description.some((x) => x.startsWith(`${runner.name} (`))).toBe(false);
      }
    }
    expect(seen).toBeGreaterThan(10);
  });
});
