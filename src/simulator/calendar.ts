/**
 * The simulated calendar: the real timetable laid onto any day, with fresh seeded ids. A day's skeleton
 * (meetings and races, no runners) is cheap; a race's field is built on first use. Pure: the same (seed,
 * day) gives the same meetings, races and ids whichever days were built before.
 */
import { HOUR, isoDay, MINUTE } from './changes.js';
import type { MeetingExtras } from './data.js';
import { meetingExtras, timetable } from './data.js';
import { buildField } from './field.js';
import type { MeetingStatic, RaceStatic, RunnerStatic } from './model.js';
import { rngFor } from './rng.js';

/**
 * Markets open, and /meetings lists a meeting, this long before its first race: measured from the real
 * payload (the opening price of Awapuni R1 is stamped 44 h 19 min before its advertised start).
 */
export const LISTING_LEAD = 44 * HOUR + 19 * MINUTE;

/** Midnight UTC of `day` (a Date or YYYY-MM-DD). */
export function dayStart(day: Date | string | number): number {
  const d = typeof day === 'string' ? new Date(`${day.slice(0, 10)}T00:00:00Z`) : new Date(day);
  const ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (Number.isNaN(ms)) throw new Error(`invalid simulator day: ${String(day)}`);
  return ms;
}

class SimRace implements RaceStatic {
  #runners: RunnerStatic[] | undefined;
  constructor(
    private readonly seed: number,
    readonly id: string,
    readonly meeting: MeetingStatic,
    readonly raceNumber: number,
    readonly name: string,
    readonly distance: number,
    readonly advertisedStart: number,
    readonly marketOpen: number,
    readonly abandoned: boolean,
    readonly poolScale: number,
  ) {}
  get runners(): RunnerStatic[] {
    this.#runners ??= buildField(this.seed, this);
    return this.#runners;
  }
  releaseRunners(): void {
    this.#runners = undefined;
  }
}

/** The meetings of one day (midnight UTC), in the timetable's order (by first start). */
export function buildDay(seed: number, day: number): MeetingStatic[] {
  const key = isoDay(day);
  return timetable.meetings.map(([name, category, country, state, track, rows], index) => {
    const rng = rngFor(seed, 'meeting', key, index);
    const extras = meetingExtras[index] as MeetingExtras;
    const firstStart = day + Math.min(...rows.map((r) => r[2])) * 1000;
    const meeting: MeetingStatic = {
      id: rng.uuid(),
      dayKey: key,
      index,
      name,
      category,
      country,
      state,
      trackCondition: track,
      weather: rows[0]?.[5] ?? '',
      date: day,
      firstStart,
      listedAt: firstStart - LISTING_LEAD,
      toteMeetingNumber: (extras.values.tote_meeting_number as number | undefined) ?? index + 1,
      extras,
      earlyQuaddie: (extras.values.early_quaddie as number[] | undefined) ?? [],
      quaddie: (extras.values.quaddie as number[] | undefined) ?? [],
      downgrade: null,
      races: [],
    };
    for (const [raceNumber, raceName, offset, distance, , , abandoned] of rows) {
      const r = rngFor(seed, 'race', key, index, raceNumber);
      const start = day + offset * 1000;
      meeting.races.push(
        new SimRace(
          seed,
          r.uuid(),
          meeting,
          raceNumber,
          raceName,
          distance || (category === 'G' ? 520 : 1400),
          start,
          meeting.listedAt,
          abandoned,
          Math.round(Math.exp(r.normal() * 0.7) * 100) / 100,
        ),
      );
    }
    // Now and then the track is downgraded during the day; each race not yet run journals it.
    if (rng.chance(0.1) && meeting.races.length >= 3 && category !== 'G') {
      const pivot = meeting.races[Math.floor(meeting.races.length / 2)] as RaceStatic;
      meeting.downgrade = {
        at: pivot.advertisedStart - rng.int(10, 40) * MINUTE,
        to: rng.pick(['Soft5', 'Soft6', 'Heavy8']),
      };
    }
    return meeting;
  });
}

/** The last start of the timetable's day, as an offset from its midnight (17:02 UTC). */
export const LAST_START_OFFSET = Math.max(...timetable.meetings.flatMap((m) => m[5].map((r) => r[2]))) * 1000;
