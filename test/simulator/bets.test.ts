import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { betRecord } from '../../src/simulator/bet-record.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { expectNear, SECOND_REAL_FINAL as REAL, share } from './measure.js';
import { DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;
type Leg = { race: Rec; selections: { position: number; entrants: Rec[] }[] | null };
type Bet = { title: string; description: string[]; legs: Leg[]; place_odds: number };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A uuid from either form a bet sends: the real string or the description's 16 integers. */
const uuidOf = (id: unknown) =>
  typeof id === 'string'
    ? id
    : (id as number[])
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('')
        .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

describe('bets, in the structures of the real ones', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let bets: { race: RaceStatic; bet: Bet }[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 14, clock, day: DAY, rateLimit: false });
    const races = sim.world.races.filter((r, i) => r.meeting.dayKey === DAY && !r.abandoned && i % 4 === 0);
    bets = races.flatMap((race) =>
      sim.world.bets(race.id).map((b) => ({ race, bet: betRecord(race, b) as unknown as Bet })),
    );
  });
  afterAll(() => sim.close());

  it('has the real titles, and null selections on about as many bets as the real payload', () => {
    expect(new Set(bets.map((b) => b.bet.title))).toEqual(new Set(REAL.titles));
    const nullSelections = share(bets, (b) => b.bet.legs.every((l) => l.selections === null));
    expectNear('bets with null selections', nullSelections, REAL.selectionsNull / REAL.bets, 0.1);
  });

  it('puts legs on the meeting other races about as often as the real payload, each naming a runner there', () => {
    const elsewhere = bets.filter((b) => b.bet.legs.some((l) => l.race.race_number !== b.race.raceNumber));
    expectNear(
      'bets with a leg elsewhere',
      elsewhere.length / bets.length,
      REAL.otherRaceBets / REAL.bets,
      0.07,
    );
    for (const { race, bet } of bets.filter((b) => b.bet.title === 'Multi')) {
      const numbers = bet.legs.map((l) => l.race.race_number as number);
      expect(numbers).toContain(race.raceNumber);
      expect(new Set(numbers).size).toBe(numbers.length);
      expect(numbers.length).toBeGreaterThanOrEqual(2);
      bet.legs.forEach((l, i) => {
        const legRace = race.meeting.races.find((r) => r.raceNumber === l.race.race_number) as RaceStatic;
        const runner = legRace.runners.find((r) => r.entrantId === uuidOf(l.race.entrant_id));
        expect(runner?.number).toBe(l.race.entrant_number);
        expect(l.race.race_name).toBe(legRace.name);
        expect(l.selections).toBeNull();
        expect(bet.description[i]).toBe(`${runner?.name} (${runner?.number})`);
      });
    }
  });

  it('makes a Pool Quadrella one leg of race 0 whose selections are the quaddie legs in order', () => {
    const quaddies = bets.filter((b) => b.bet.title === 'Pool Quadrella');
    expect(quaddies.length).toBeGreaterThan(10);
    for (const { race, bet } of quaddies) {
      expect(bet.legs).toHaveLength(1);
      const leg = bet.legs[0] as Leg;
      expect(leg.race).toEqual({
        meeting_name: race.meeting.name,
        race_name: '',
        race_number: 0,
        product_type_name: 'Pool Quadrella',
      });
      const legs = [race.meeting.earlyQuaddie, race.meeting.quaddie].find((q) => q.includes(race.raceNumber));
      expect(leg.selections?.map((s) => s.position)).toEqual(legs?.map((_, i) => i + 1));
      leg.selections?.forEach((s, i) => {
        const legRace = race.meeting.races.find((r) => r.raceNumber === legs?.[i]) as RaceStatic;
        for (const e of s.entrants)
          expect(legRace.runners.some((r) => r.entrantId === uuidOf(e.entrant_id))).toBe(true);
      });
      expect(bet.place_odds).toBe(0);
    }
  });

  it('gives singles their runner on the leg race with null selections, described by number, not barrier', () => {
    const singles = bets.filter((b) => b.bet.title === 'Fixed Win' || b.bet.title === 'Top 3');
    expect(singles.length).toBeGreaterThan(100);
    for (const { race, bet } of singles) {
      const leg = bet.legs[0] as Leg;
      expect(bet.legs).toHaveLength(1);
      expect(leg.selections).toBeNull();
      expect(leg.race.race_number).toBe(race.raceNumber);
      const runner = race.runners.find((r) => r.entrantId === uuidOf(leg.race.entrant_id));
      expect(runner?.number).toBe(leg.race.entrant_number);
      expect(bet.description).toEqual([`${runner?.name} (${runner?.number})`]);
    }
    // Some runner's barrier differs from its number, so the description cannot be read as a barrier.
    expect(
      singles.some(({ race, bet }) =>
        race.runners.some((r) => bet.description[0] === `${r.name} (${r.number})` && r.barrier !== r.number),
      ),
    ).toBe(true);
  });

  it('sends entrant ids as uuid strings as the real bets do, and as the description 16 integers on some', () => {
    const ids = bets.flatMap((b) =>
      b.bet.legs.flatMap((l) => [
        ...(l.race.entrant_id === undefined ? [] : [l.race.entrant_id]),
        ...(l.selections ?? []).flatMap((s) => s.entrants.map((e) => e.entrant_id)),
      ]),
    );
    const strings = share(ids, (id) => typeof id === 'string');
    expect(strings).toBeGreaterThan(0.8);
    expect(strings).toBeLessThan(0.95);
    for (const id of ids) expect(uuidOf(id)).toMatch(UUID);
  });
});

describe('the bets a race keeps drawn', () => {
  it('are the same when a race dropped from the cache is asked again', async () => {
    const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
    const sim = await createSimulator({ seed: 14, clock, day: DAY, rateLimit: false });
    const races = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned);
    expect(races.length).toBeGreaterThan(300);
    const first = sim.world.bets(races[0]!.id);
    expect(first.length).toBeGreaterThan(0);
    // 300 other races push the first out of the 256 kept: it is drawn again, to the same bets.
    for (const race of races.slice(1, 301)) sim.world.bets(race.id);
    const again = sim.world.bets(races[0]!.id);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    await sim.close();
  });
});
