import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import {
  eventResponseSchema,
  meetingsResponseSchema,
  racesResponseSchema,
} from '../../src/upstream/schemas.js';
import {
  specEventResponse,
  specMeetingResponse,
  specMeetingsResponse,
  specRacesResponse,
} from '../../src/upstream/spec-schemas.js';
import { DAY, get, settableClock } from './support.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/real/${name}`, import.meta.url), 'utf8')) as unknown;

function expectValid(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  value: unknown,
) {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(JSON.stringify((r.error as { issues: unknown[] }).issues.slice(0, 5)));
}

describe('the spec schemas', () => {
  it('accept the real payloads of every captured operation', () => {
    expectValid(specMeetingsResponse, fixture('meetings-day.json'));
    expectValid(specMeetingResponse, fixture('meeting-detail.json'));
    expectValid(specEventResponse, fixture('event-final-awapuni.json'));
  });

  it('reject an event payload whose race lacks a required member', () => {
    const doc = fixture('event-final-awapuni.json') as { data: { race: Record<string, unknown> } };
    delete doc.data.race.advertised_start;
    expect(specEventResponse.safeParse(doc).success).toBe(false);
  });
});

describe('simulator payloads', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 3, clock, day: DAY, rateLimit: false });
  });
  afterAll(() => sim.close());

  // Just listed, in betting, just after the jump, Interim, Final: one race per code at each stage.
  const stages = [-44 * 3600_000, -20 * 60_000, 60_000, 4 * 60_000, 15 * 60_000];

  it('pass the spec and runtime schemas for every operation, code and stage of a race', async () => {
    const races = ['T', 'H', 'G'].map((code) => {
      const race = sim.world.races.find((r) => r.meeting.category === code && r.runners.length > 0);
      if (!race) throw new Error(`no ${code} race`);
      return race;
    });
    for (const race of races) {
      for (const offset of stages) {
        clock.set(race.advertisedStart + offset);
        const list = await get(sim, `/meetings?date_from=${DAY}&date_to=${DAY}&enc=json`);
        expect(list.status).toBe(200);
        expectValid(specMeetingsResponse, list.json());
        expectValid(meetingsResponseSchema, list.json());
        const one = await get(sim, `/meetings/${race.meeting.id}?enc=json`);
        expectValid(specMeetingResponse, one.json());
        expectValid(meetingsResponseSchema, one.json());
        const a = await get(sim, `/races/${race.id}?enc=json`);
        expectValid(specRacesResponse, a.json());
        expectValid(racesResponseSchema, a.json());
        for (const q of [
          'enc=json',
          'enc=json&with_money_tracker=true&with_will_pays=true&with_tote_trends_data=true',
          'enc=json&with_big_bets=true&with_live_bets=true&with_biggest_bet=true',
        ]) {
          const b = await get(sim, `/events/${race.id}?${q}`);
          expectValid(specEventResponse, b.json());
          expectValid(eventResponseSchema, b.json());
        }
      }
    }
  });

  it('give race and data records the members of the real ones, in the real order', async () => {
    const real = fixture('event-final-awapuni.json') as {
      header: { url: string };
      data: Record<string, unknown>;
    };
    const race = sim.world.races.find(
      (r) => r.meeting.dayKey === DAY && r.meeting.category === 'T' && !r.abandoned,
    ) as (typeof sim.world.races)[number];
    clock.set(sim.world.lifecycle(race.id).finalAt + 60_000);
    const b = (await get(sim, `/events/${race.id}?${real.header.url.split('?')[1]}`)).json();
    expect(Object.keys(b.data)).toEqual(Object.keys(real.data));
    const realRace = Object.keys(real.data.race as object);
    expect(Object.keys(b.data.race).filter((k) => realRace.includes(k))).toEqual(realRace);
  });

  it('lay greyhound fields of eight boxes with box numbers as barriers', () => {
    const dogs = sim.world.races.filter((r) => r.meeting.category === 'G');
    expect(dogs.length).toBeGreaterThan(100);
    for (const r of dogs) expect(r.runners.map((x) => x.barrier)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('serve the real day: 76 meetings, 748 races, 12 countries and 3 codes', async () => {
    clock.set(Date.parse(`${DAY}T00:00:00Z`));
    const list = (await get(sim, `/meetings?date_from=${DAY}&date_to=${DAY}&limit=200`)).json().data.meetings;
    expect(list).toHaveLength(76);
    expect(list.reduce((n: number, m: { races: unknown[] }) => n + m.races.length, 0)).toBe(748);
    expect(new Set(list.map((m: { country: string }) => m.country)).size).toBe(12);
    expect(new Set(list.map((m: { category: string }) => m.category))).toEqual(new Set(['T', 'H', 'G']));
  });
});
