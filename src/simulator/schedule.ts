/**
 * Builds the simulated day: the real timetable laid onto the configured day, fresh seeded ids and fields,
 * and each race's precomputed story (odds moves, scratchings, delay, jump, results, dividends, protest,
 * abandonment) as timed changes. Pure: the same (seed, day) gives the same world.
 */

import { byTime, change, HOUR, ladder, MINUTE } from './changes.js';
import { timetable } from './data.js';
import type { MeetingStatic, RaceStatic, RunnerStatic, TimedChange } from './model.js';
import { type Rng, rngFor } from './rng.js';
import { storyOf } from './story.js';

const SYLLABLES = [
  'ka',
  'ro',
  'mi',
  'ta',
  'vel',
  'sun',
  'dar',
  'lo',
  'bel',
  'ne',
  'sto',
  'rm',
  'fly',
  'ace',
  'zen',
  'qui',
];
const WORDS = [
  'Star',
  'Lady',
  'King',
  'Royal',
  'Storm',
  'Dancer',
  'Bay',
  'Flash',
  'Gold',
  'River',
  'Jet',
  'Rose',
];
const FIRST = ['Liam', 'Kate', 'Sam', 'Ava', 'Tom', 'Mia', 'Jack', 'Zoe', 'Ben', 'Ella', 'Josh', 'Ruby'];
const LAST = ['Kauri', 'Hercock', 'Smith', 'Walker', 'Brown', 'Taylor', 'Nguyen', 'Wilson', 'Reid', 'Clarke'];

function horseName(rng: Rng): string {
  const w = rng.pick(SYLLABLES) + rng.pick(SYLLABLES);
  const head = w.charAt(0).toUpperCase() + w.slice(1);
  return rng.chance(0.5) ? `${head} ${rng.pick(WORDS)}` : head;
}
const person = (rng: Rng) => `${rng.pick(FIRST)} ${rng.pick(LAST)}`;

export interface BuiltWorld {
  meetings: MeetingStatic[];
  races: RaceStatic[];
  /** Precomputed changes per race id, sorted by (at, seq). */
  changes: Map<string, TimedChange[]>;
}

/** Midnight UTC of `day` (a Date or YYYY-MM-DD). */
export function dayStart(day: Date | string): number {
  const d = typeof day === 'string' ? new Date(`${day.slice(0, 10)}T00:00:00Z`) : day;
  const ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (Number.isNaN(ms)) throw new Error(`invalid simulator day: ${String(day)}`);
  return ms;
}

export function buildWorld(seed: number, day: number): BuiltWorld {
  const meetings: MeetingStatic[] = [];
  const races: RaceStatic[] = [];
  const changes = new Map<string, TimedChange[]>();
  let seq = 0;
  timetable.meetings.forEach(([name, category, country, state, track, raceRows], mi) => {
    const mrng = rngFor(seed, 'meeting', mi);
    const meeting: MeetingStatic = {
      id: mrng.uuid(),
      index: mi,
      name,
      category,
      country,
      state,
      trackCondition: track,
      weather: raceRows[0]?.[5] ?? '',
      date: day,
      toteMeetingNumber: mi + 1,
      races: [],
    };
    meetings.push(meeting);
    for (const [raceNumber, raceName, offset, distance, , , abandoned] of raceRows) {
      const rng = rngFor(seed, 'race', mi, raceNumber);
      const advertisedStart = day + offset * 1000;
      const field = category === 'G' ? 8 : category === 'H' ? rng.int(8, 14) : rng.int(6, 16);
      const weights = Array.from({ length: field }, () => Math.exp(rng.normal() * 0.8));
      const sum = weights.reduce((a, b) => a + b, 0);
      const barriers = rng.shuffle(Array.from({ length: field }, (_, i) => i + 1));
      const runners: RunnerStatic[] = weights.map((w, i) => ({
        entrantId: rng.uuid(),
        horseId: rng.int(100_000, 9_999_999),
        number: i + 1,
        barrier: category === 'G' ? i + 1 : (barriers[i] as number),
        name: horseName(rng),
        jockey: category === 'G' ? '' : person(rng),
        trainer: person(rng),
        weight:
          category === 'G' ? Math.round(rng.range(26, 36) * 10) / 10 : category === 'H' ? 0 : rng.int(54, 61),
        form: Array.from({ length: 5 }, () =>
          rng.pick(['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'x']),
        ).join(''),
        openWin: ladder((sum / w) * 1.18),
      }));
      const race: RaceStatic = {
        id: rng.uuid(),
        index: races.length,
        meeting,
        raceNumber,
        name: raceName,
        distance: distance || (category === 'G' ? 520 : 1400),
        advertisedStart,
        marketOpen: advertisedStart - 45 * HOUR,
        runners,
        positionsPaid: field >= 8 ? 3 : 2,
        poolScale: Math.round(rng.range(0.3, 3) * 100) / 100,
      };
      meeting.races.push(race);
      races.push(race);
      const list = storyOf(seed, race, abandoned, rng, () => seq++);
      changes.set(race.id, list);
    }
  });
  // Occasionally the track is downgraded during the day; each race not yet run sees the change.
  for (const meeting of meetings) {
    const rng = rngFor(seed, 'track', meeting.index);
    if (!rng.chance(0.1) || meeting.races.length < 3 || meeting.category === 'G') continue;
    const pivot = meeting.races[Math.floor(meeting.races.length / 2)] as RaceStatic;
    const at = pivot.advertisedStart - rng.int(10, 40) * MINUTE;
    const to = rng.pick(['Soft5', 'Soft6', 'Heavy8']);
    for (const race of meeting.races) {
      if (race.advertisedStart <= at) continue;
      const list = changes.get(race.id) as TimedChange[];
      list.push(change(race, at, seq++, 'track_condition', { from: meeting.trackCondition, to }));
      list.sort(byTime);
    }
  }
  return { meetings, races, changes };
}
