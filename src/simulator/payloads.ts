/**
 * Response payloads (the `data` member) of the meeting and race operations (shape A), built from the world's
 * state at an instant. Shape B (/events) is in event-payload.ts.
 */
import type { MeetingStatic, RaceState, RaceStatic, RunnerState, RunnerStatic } from './model.js';
import { rngFor } from './rng.js';

const CATEGORY_NAMES: Record<string, string> = {
  T: 'Thoroughbred Horse Racing',
  H: 'Harness Horse Racing',
  G: 'Greyhound Racing',
};

export const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
/** Nanosecond-precision timestamp like the real API's (`2025-07-17T11:16:59.18904298Z`). */
export const isoNano = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000000Z`;
/** HH:MM:SS in New Zealand standard time, as `tote_start_time` is. */
export const nzClock = (ms: number) => new Date(ms + 12 * 3_600_000).toISOString().slice(11, 19);

export function raceSummary(race: RaceStatic, state: RaceState, single: boolean): Record<string, unknown> {
  const start = iso(state.startTime);
  return {
    id: race.id,
    race_number: race.raceNumber,
    name: race.name,
    start_time: start,
    ...(single ? { tote_start_time: nzClock(state.startTime) } : {}),
    track_condition: state.trackCondition,
    distance: race.distance,
    weather: race.meeting.weather,
    country: race.meeting.country,
    state: race.meeting.state,
    status: state.status,
  };
}

export function meetingRecord(
  meeting: MeetingStatic,
  summaries: Record<string, unknown>[],
  trackCondition: string,
  single: boolean,
): Record<string, unknown> {
  const numbers = meeting.races.map((r) => r.raceNumber);
  return {
    meeting: meeting.id,
    name: meeting.name,
    date: iso(meeting.date),
    track_condition: trackCondition,
    category: meeting.category,
    category_name: CATEGORY_NAMES[meeting.category] ?? meeting.category,
    country: meeting.country,
    state: meeting.state,
    ...(single
      ? {
          weather: meeting.weather,
          video_channels: ['Trackside1'],
          quaddie: numbers.slice(-4),
          early_quaddie: numbers.length >= 8 ? numbers.slice(0, 4) : [],
          tote_meeting_number: meeting.toteMeetingNumber,
          tote_raceday_date: iso(meeting.date).slice(0, 10),
          tote_status: 'Open',
        }
      : {}),
    races: summaries,
  };
}

// ---- shape A ----------------------------------------------------------------------------------

export function raceA(race: RaceStatic, state: RaceState): Record<string, unknown> {
  const byId = new Map(race.runners.map((r) => [r.entrantId, r]));
  const out: Record<string, unknown> = {
    id: race.id,
    race_number: race.raceNumber,
    name: race.name,
    start_time: iso(state.startTime),
    distance: race.distance,
    track_condition: state.trackCondition,
    status: state.status,
    runners: race.runners.map((r) => {
      const s = state.runners.get(r.entrantId) as RunnerState;
      return {
        runner_number: r.number,
        horse_name: r.name,
        horse_id: uuidOf(race, r, 'horse'),
        barrier: r.barrier,
        weight: r.weight,
        jockey_name: r.jockey,
        jockey_id: uuidOf(race, r, 'jockey'),
        trainer_name: r.trainer,
        trainer_id: uuidOf(race, r, 'trainer'),
        form: r.form.split('').join('-'),
        scratched: s.scratchedAt !== null,
        fixed_odds: { win: s.fixedWin, place: s.fixedPlace },
      };
    }),
  };
  if (state.results) {
    out.results = state.results.map((row) => {
      const r = byId.get(row.entrantId) as RunnerStatic;
      const win = state.dividends.findLast(
        (d) => d.product === 'Pool Win' && d.positions[0]?.runner_number === r.number,
      );
      const place = state.dividends.findLast(
        (d) => d.product === 'Pool Place' && d.positions[0]?.runner_number === r.number,
      );
      return {
        runner_number: r.number,
        finish_position: row.position,
        margin: row.marginLength,
        time: row.timeRan,
        ...(win || place ? { dividends: { win: win?.dividend ?? 0, place: place?.dividend ?? 0 } } : {}),
      };
    });
  }
  return out;
}

/** Ids of a runner's horse, jockey and trainer: derived from its entrant id, cached with the runner. */
const uuidCache = new WeakMap<RunnerStatic, Record<string, string>>();
function uuidOf(race: RaceStatic, r: RunnerStatic, what: string): string {
  let ids = uuidCache.get(r);
  if (!ids) {
    ids = {};
    uuidCache.set(r, ids);
  }
  ids[what] ??= rngFor(race.index, r.entrantId, what).uuid();
  return ids[what];
}
