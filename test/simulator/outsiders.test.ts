import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { outsideMoverFrom } from '../../src/simulator/outsiders.js';
import { expectNear, expectWithin, mean, realEvent, SECOND_REAL_FINAL, share } from './measure.js';
import { eventsAt } from './sim-stats.js';
import { DAY, get, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const idsOf = (rows: unknown) => (rows as { entrant_id: string }[]).map((r) => r.entrant_id);

describe('entrants outside the field, as the real payloads have them', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let races: RaceStatic[];
  let finals: { data: Rec }[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: false });
    races = sim.world.races.filter((r, i) => r.meeting.dayKey === DAY && !r.abandoned && i % 8 === 0);
    finals = await eventsAt(
      sim,
      clock,
      races,
      (r) => sim.world.lifecycle(r.id).finalAt,
      'with_money_tracker=true',
    );
  });
  afterAll(() => sim.close());

  it('lists one to three of the six tips outside the field, as the real 1 of 6 and 3 of 6', () => {
    const real = realEvent().data;
    const realOutside = [
      idsOf(real.runners).length &&
        (real.race as { tips: string[] }).tips.filter((id) => !idsOf(real.runners).includes(id)).length,
      SECOND_REAL_FINAL.tipsOutsideField,
    ];
    expect(realOutside[0]).toBe(1);
    const outside = finals.map(({ data }) => {
      const tips = (data.race as { tips: string[] }).tips;
      const field = (data.runners as Rec[]).filter((r) => !r.is_scratched).length;
      if (field >= 5) expect(tips).toHaveLength(SECOND_REAL_FINAL.tips);
      return tips.filter((id) => !idsOf(data.runners).includes(id)).length;
    });
    expect(Math.min(...outside)).toBe(1);
    expect(Math.max(...outside)).toBe(3);
    expectWithin('tips outside the field', mean(outside), mean(realOutside), 0.15);
  });

  it('gives the money tracker 3 to 5 entrants outside the field, the ones the tips and the mover name', () => {
    for (const { data } of finals) {
      const runners = new Set(idsOf(data.runners));
      const outside = new Set(
        idsOf((data.money_tracker as { entrants: unknown }).entrants).filter((id) => !runners.has(id)),
      );
      expect(outside.size).toBeGreaterThanOrEqual(3);
      expect(outside.size).toBeLessThanOrEqual(5);
      for (const id of (data.race as { tips: string[] }).tips)
        expect(runners.has(id) || outside.has(id)).toBe(true);
      const mover = (data.mover as Rec).entrant_id as string;
      expect(runners.has(mover) || outside.has(mover)).toBe(true);
    }
  });

  it('makes the mover an entrant outside the field in about half the races (the real: one of two), shaped as the real one', () => {
    const outside = finals.filter(
      ({ data }) => !idsOf(data.runners).includes((data.mover as Rec).entrant_id as string),
    );
    expectNear('races with an outside mover', outside.length / finals.length, 0.5, 0.12);
    for (const { data } of outside) {
      expect(data.mover).toMatchObject({
        market_name: 'Live Racing',
        primary_market: false,
        favourite: false,
        mover: true,
        odds: { fixed_win: 1, fixed_place: 0 },
      });
      expect((data.runners as Rec[]).filter((r) => r.mover)).toEqual([]);
      // Its members are those of an entrant record: the race's runners' less the runner-only ones.
      const members = new Set((data.runners as Rec[]).flatMap((r) => Object.keys(r)));
      expect(Object.keys(data.mover as Rec).filter((k) => !members.has(k))).toEqual([]);
      expect(Object.keys(data.mover as Rec).length).toBeGreaterThan(70);
    }
    // Its number clashes with a runner's in some races, so only its id tells it apart.
    expect(
      share(outside, ({ data }) =>
        (data.runners as Rec[]).some((r) => r.runner_number === (data.mover as Rec).runner_number),
      ),
    ).toBeGreaterThan(0.5);
  });

  it('turns the mover outside the field at one instant, before the close, and keeps it there', async () => {
    const race = races.find((r) => {
      const from = outsideMoverFrom(5, r, sim.world.lifecycle(r.id).start);
      return from !== null && from < sim.world.lifecycle(r.id).closeAt;
    }) as RaceStatic;
    const from = outsideMoverFrom(5, race, sim.world.lifecycle(race.id).start) as number;
    const moverAt = async (t: number) => {
      clock.set(t);
      const { data } = (await get(sim, `/events/${race.id}`)).json();
      return { mover: (data.mover as Rec).entrant_id, runners: idsOf(data.runners) };
    };
    const before = await moverAt(from - 1);
    expect(before.runners).toContain(before.mover);
    const at = await moverAt(from);
    expect(at.runners).not.toContain(at.mover);
    expect((await moverAt(sim.world.lifecycle(race.id).finalAt)).mover).toBe(at.mover);
  });
});
