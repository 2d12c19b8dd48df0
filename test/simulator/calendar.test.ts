import { describe, expect, it } from 'vitest';
import { createSimulator, defaultDay } from '../../src/simulator/index.js';
import { movesOf, realEvent } from './measure.js';
import { DAY, get, settableClock } from './support.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('the simulated calendar', () => {
  it('builds yesterday, today and tomorrow of the configured day, the real timetable on each', async () => {
    const sim = await createSimulator({
      clock: settableClock(at('2030-02-03T12:00:00Z')),
      day: '2030-02-03',
      rateLimit: false,
    });
    try {
      const days = new Map<string, number>();
      for (const m of sim.world.meetings) days.set(m.dayKey, (days.get(m.dayKey) ?? 0) + m.races.length);
      expect([...days]).toEqual([
        ['2030-02-02', 748],
        ['2030-02-03', 748],
        ['2030-02-04', 748],
      ]);
      const today = sim.world.races
        .filter((r) => r.meeting.dayKey === '2030-02-03')
        .map((r) => r.advertisedStart);
      // The real day runs from 14:15 UTC the day before to 17:02 UTC on the day.
      expect(new Date(Math.min(...today)).toISOString()).toBe('2030-02-02T14:15:00.000Z');
      expect(new Date(Math.max(...today)).toISOString()).toBe('2030-02-03T17:02:00.000Z');
    } finally {
      await sim.close();
    }
  });

  it('gives each day the same ids whichever days were built first, and builds later days on demand', async () => {
    const clock = settableClock(at(`${DAY}T12:00:00Z`));
    const a = await createSimulator({ seed: 4, clock, day: DAY, rateLimit: false });
    const b = await createSimulator({ seed: 4, clock, day: '2026-11-23', rateLimit: false });
    try {
      const ids = (sim: typeof a, dayKey: string) =>
        sim.world.races.filter((r) => r.meeting.dayKey === dayKey).map((r) => r.id);
      expect(ids(b, DAY)).toEqual(ids(a, DAY));
      expect(ids(a, '2026-11-24')).toEqual([]);
      // Two days later some meetings are listed (45 h ahead), so /meetings builds that day.
      const later = (await get(a, '/meetings?date_from=2026-11-24&date_to=2026-11-24&limit=200')).json();
      expect(later.data.meetings.length).toBeGreaterThan(0);
      expect(ids(a, '2026-11-24')).toEqual(ids(b, '2026-11-24'));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('lists a meeting, and resolves its ids, from the measured market lead before its first race', async () => {
    // Real: the opening price of Awapuni R1 is stamped this long before its advertised start.
    const real = realEvent().data;
    const advertised = (real.race as { advertised_start: number }).advertised_start * 1000;
    const realLead = advertised - Math.min(...movesOf(real).map((r) => r.open));
    const clock = settableClock(0);
    const sim = await createSimulator({ seed: 2, clock, day: DAY, rateLimit: false });
    try {
      const meeting = sim.world.meetings.find(
        (m) => m.dayKey === '2026-11-23',
      ) as (typeof sim.world.meetings)[0];
      const race = meeting.races[0] as (typeof meeting.races)[0];
      const lead = meeting.firstStart - meeting.listedAt;
      expect(Math.abs(lead - realLead)).toBeLessThan(60_000);
      const listed = async () =>
        (await get(sim, '/meetings?date_from=2026-11-23&date_to=2026-11-23&limit=200'))
          .json()
          .data.meetings.some((m: { meeting: string }) => m.meeting === meeting.id);
      clock.set(meeting.listedAt - 1);
      expect(await listed()).toBe(false);
      for (const path of [`/meetings/${meeting.id}`, `/events/${race.id}`, `/races/${race.id}`]) {
        expect((await get(sim, path)).status).toBe(404);
      }
      clock.set(meeting.listedAt);
      expect(await listed()).toBe(true);
      for (const path of [`/meetings/${meeting.id}`, `/events/${race.id}`, `/races/${race.id}`]) {
        expect((await get(sim, path)).status).toBe(200);
      }
      // The opening price is stamped at the listing, as the real open fluc is.
      const event = (await get(sim, `/events/${race.id}`)).json().data;
      expect(event.runners[0].flucs_with_timestamp.open.timestamp.slice(0, 23)).toBe(
        new Date(meeting.listedAt).toISOString().slice(0, 23),
      );
    } finally {
      await sim.close();
    }
  });

  it('at any hour of a day lists every meeting of yesterday, today and tomorrow', async () => {
    const clock = settableClock(at(`${DAY}T00:00:00Z`));
    const sim = await createSimulator({ seed: 3, clock, day: DAY, rateLimit: false });
    try {
      for (let h = 0; h < 24; h += 6) {
        clock.set(at(`${DAY}T00:00:00Z`) + h * HOUR);
        const page = async (offset: number) =>
          (
            await get(sim, `/meetings?date_from=2026-11-21&date_to=2026-11-23&limit=200&offset=${offset}`)
          ).json().data.meetings;
        expect((await page(0)).length + (await page(200)).length).toBe(3 * 76);
      }
    } finally {
      await sim.close();
    }
  });

  it('forgets days before yesterday on a long run, keeping memory bounded', async () => {
    const clock = settableClock(at(`${DAY}T12:00:00Z`));
    const sim = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: false });
    try {
      const first = sim.world.races[0] as { id: string };
      for (let d = 0; d < 10; d++) {
        clock.set(at(`${DAY}T12:00:00Z`) + d * 24 * HOUR);
        const body = (await get(sim, '/meetings?date_from=all&date_to=all&limit=200')).json();
        expect(body.data.meetings.length).toBe(200);
        expect(new Set(sim.world.meetings.map((m) => m.dayKey)).size).toBeLessThanOrEqual(7);
      }
      expect((await get(sim, `/events/${first.id}`)).status).toBe(404);
      // Ten days on, the world starts the day before yesterday.
      expect((await get(sim, '/meetings?date_from=all&date_to=all')).json().params.date_from).toBe(
        '2026-11-29T00:00:00Z',
      );
      expect(
        (await get(sim, '/meetings?date_from=2026-12-01&date_to=2026-12-01')).json().data.meetings,
      ).toHaveLength(76);
    } finally {
      await sim.close();
    }
  });

  it('drops what it built for the races of a day before yesterday as soon as it builds a new day, and builds it again the same', async () => {
    const clock = settableClock(at(`${DAY}T12:00:00Z`));
    const sim = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: false });
    try {
      const raceOf = (dayKey: string) =>
        (sim.world.races.find((r) => r.meeting.dayKey === dayKey) as { id: string }).id;
      // A race of each day is asked for while it runs: its story and state are built and held.
      const played = raceOf(DAY);
      expect((await get(sim, `/events/${played}`)).status).toBe(200);
      const state = JSON.stringify(sim.world.stateAt(played, at(`${DAY}T23:00:00Z`)).state);
      clock.set(at('2026-11-23T12:00:00Z'));
      const yesterday = raceOf('2026-11-23');
      expect((await get(sim, `/events/${yesterday}`)).status).toBe(200);
      // Two days on, discovery lists one day more: the world builds it and drops what the day before
      // yesterday held, not only beyond seven built days (four here).
      clock.set(at('2026-11-24T12:00:00Z'));
      expect(sim.world.holds(played)).toBe(true);
      await get(sim, '/meetings?date_from=2026-11-25&date_to=2026-11-25&limit=200');
      expect([sim.world.holds(played), sim.world.holds(yesterday)]).toEqual([false, true]);
      expect((await get(sim, `/events/${played}`)).status).toBe(200);
      expect(JSON.stringify(sim.world.stateAt(played, at(`${DAY}T23:00:00Z`)).state)).toBe(state);
    } finally {
      await sim.close();
    }
  });

  it('defaults the day to the UTC day of the clock, or the next one once its racing is over', async () => {
    expect(new Date(defaultDay(at('2027-05-06T17:02:00Z'))).toISOString()).toBe('2027-05-06T00:00:00.000Z');
    expect(new Date(defaultDay(at('2027-05-06T17:02:01Z'))).toISOString()).toBe('2027-05-07T00:00:00.000Z');
    const sim = await createSimulator({ clock: settableClock(at('2027-05-06T08:00:00Z')), rateLimit: false });
    try {
      expect(new Date(sim.world.day).toISOString()).toBe('2027-05-06T00:00:00.000Z');
    } finally {
      await sim.close();
    }
  });
});
