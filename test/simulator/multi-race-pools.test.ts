import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { eventsAt } from './sim-stats.js';
import { DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const MULTI = ['RunningDouble', 'Double', 'Treble'];
const NAMES: Record<string, string> = {
  RunningDouble: 'Pool Running Double',
  Double: 'Pool Double',
  Treble: 'Pool Treble',
};

const setsOf = (race: RaceStatic, member: string) =>
  (race.meeting.extras.values[member] as number[][] | undefined) ?? [];

describe('the doubles and trebles of the real pool set (issue 22)', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let races: RaceStatic[];
  let finals: { data: Rec }[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 3, clock, day: DAY, rateLimit: false });
    races = sim.world.races.filter(
      (r) => r.meeting.dayKey === DAY && !r.abandoned && setsOf(r, 'tote_running_double').length > 0,
    );
    finals = await eventsAt(sim, clock, races, (r) => sim.world.lifecycle(r.id).finalAt, 'enc=json');
  });
  afterAll(() => sim.close());

  it('runs a running double on every pair, a treble on every triple, a concession Double on the last pair', () => {
    // The five real meetings whose list entry names doubles and trebles, every simulated day.
    expect([...new Set(races.map((r) => r.meeting.name))].sort()).toEqual([
      'Addington',
      'Awapuni Synthetic',
      'Cambridge',
      'Cambridge (G)',
      'Winton',
    ]);
    races.forEach((race, i) => {
      const pools = ((finals[i] as { data: Rec }).data.tote_pools as Rec[]).filter((p) =>
        MULTI.includes(p.product_type as string),
      );
      const expected: Rec[] = [];
      const doubles = setsOf(race, 'tote_running_double');
      const trebles = setsOf(race, 'tote_treble');
      for (const legs of doubles) {
        if (legs.includes(race.raceNumber))
          expected.push({
            product_type: 'RunningDouble',
            leg: legs.indexOf(race.raceNumber) + 1,
            guarantee: 0,
          });
      }
      const last = doubles.at(-1) as number[];
      if (last.includes(race.raceNumber))
        expected.push({ product_type: 'Double', leg: last.indexOf(race.raceNumber) + 1, guarantee: 5000 });
      trebles.forEach((legs, k) => {
        if (legs.includes(race.raceNumber))
          expected.push({
            product_type: 'Treble',
            leg: legs.indexOf(race.raceNumber) + 1,
            guarantee: k === trebles.length - 1 ? 5000 * 2 : 0,
          });
      });
      expect(
        pools.map((p) => ({ product_type: p.product_type, leg: p.leg, guarantee: p.guarantee })),
      ).toEqual(expected);
      for (const p of pools) {
        expect(p.is_concession).toBe(p.product_type === 'Double');
        expect(p.is_commingled).toBe(false);
        expect(p.total as number).toBeGreaterThan(0);
      }
    });
  });

  it('pays each on its last leg, Interim and Final, the Double described concession:<winner>/<starters>', () => {
    let paid = 0;
    for (const { data } of finals) {
      const pools = data.tote_pools as Rec[];
      const rows = (data.dividends as Rec[]).filter((d) =>
        Object.values(NAMES).includes(d.product_name as string),
      );
      const lastLegOf = pools.filter(
        (p) => MULTI.includes(p.product_type as string) && p.leg === (p.product_type === 'Treble' ? 3 : 2),
      );
      expect(rows.map((r) => r.product_name).sort()).toEqual(
        lastLegOf.flatMap((p) => [NAMES[p.product_type as string], NAMES[p.product_type as string]]).sort(),
      );
      const winner = (data.results as Rec[])[0]?.runner_number;
      const starters = (data.runners as Rec[]).filter((r) => !r.is_scratched).length;
      for (const p of lastLegOf) {
        const [interim, final] = ['Interim', 'Final'].map((status) =>
          rows.find((r) => r.product_name === NAMES[p.product_type as string] && r.status === status),
        );
        expect(interim?.pool_size).toBe(p.total);
        expect(final?.pool_size).toBe(p.total);
        expect(final?.positions).toEqual([{ runner_number: winner, position: 1 }]);
        expect(final?.dividend as number).toBeGreaterThan(1);
        expect(final?.description).toBe(
          p.product_type === 'Double' ? `concession:${winner}/${starters}` : String(winner),
        );
        paid++;
      }
    }
    // Every simulated day pays some of each (the real tote meetings' doubles and trebles).
    expect(paid).toBeGreaterThan(races.length / 3);
  });
});
