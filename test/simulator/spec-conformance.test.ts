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

  // Before the market, in betting, just after the jump, Interim, Final: one race per code at each stage.
  const stages = [-50 * 3600_000, -20 * 60_000, 60_000, 4 * 60_000, 15 * 60_000];

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
          'enc=json&with_money_tracker=true&will_pays=true&with_tote_trends_data=true',
        ]) {
          const b = await get(sim, `/events/${race.id}?${q}`);
          expectValid(specEventResponse, b.json());
          expectValid(eventResponseSchema, b.json());
        }
      }
    }
  });

  it('give runner, race and data records the members of the real ones', async () => {
    const realData = (fixture('event-final-awapuni.json') as { data: Record<string, unknown> }).data;
    const real = (realData.runners as Record<string, unknown>[])[0] as Record<string, unknown>;
    const race = sim.world.races.find((r) => r.meeting.category === 'T') as (typeof sim.world.races)[number];
    const b = (await get(sim, `/events/${race.id}?enc=json`)).json();
    const runner = b.data.runners[0] as Record<string, unknown>;
    expect(Object.keys(runner)).toEqual(Object.keys(real));
    expect(Object.keys(b.data.race)).toEqual(expect.arrayContaining(Object.keys(realData.race as object)));
    expect(Object.keys(b.data)).toEqual(
      expect.arrayContaining(
        Object.keys(realData).filter((k) => k !== 'results' && k !== 'dividends' && k !== 'money_tracker'),
      ),
    );
  });

  it('include money tracker, tote trends and will-pays only when asked', async () => {
    const race = sim.world.races[0] as (typeof sim.world.races)[number];
    clock.set(race.advertisedStart - 10 * 60_000);
    const plain = (await get(sim, `/events/${race.id}?enc=json`)).json().data;
    expect(plain.money_tracker).toBeUndefined();
    expect(plain.tote_pools.some((p: Record<string, unknown>) => 'tote_trends' in p)).toBe(false);
    const full = (
      await get(
        sim,
        `/events/${race.id}?enc=json&with_money_tracker=true&with_tote_trends_data=true&will_pays=true`,
      )
    ).json().data;
    expect(Array.isArray(full.money_tracker.entrants)).toBe(true);
    expect(full.tote_pools.every((p: Record<string, unknown>) => 'tote_trends' in p)).toBe(true);
    expect(
      full.tote_pools.find((p: Record<string, unknown>) => p.product_type === 'EarlyQuadrella').will_pays,
    ).toEqual([]);
  });

  it('lay greyhound fields of eight boxes with box numbers as barriers', () => {
    const dogs = sim.world.races.filter((r) => r.meeting.category === 'G');
    expect(dogs.length).toBeGreaterThan(100);
    for (const r of dogs) expect(r.runners.map((x) => x.barrier)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('serve the real day: 76 meetings, 748 races, 12 countries and 3 codes', async () => {
    const list = (await get(sim, `/meetings?date_from=${DAY}&date_to=${DAY}&limit=200`)).json().data.meetings;
    expect(list).toHaveLength(76);
    expect(list.reduce((n: number, m: { races: unknown[] }) => n + m.races.length, 0)).toBe(748);
    expect(new Set(list.map((m: { country: string }) => m.country)).size).toBe(12);
    expect(new Set(list.map((m: { category: string }) => m.category))).toEqual(new Set(['T', 'H', 'G']));
  });
});
