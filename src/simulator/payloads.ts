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

export type RaceSummaryState = Pick<RaceState, 'status' | 'startTime' | 'trackCondition' | 'protest'>;

function raceSummary(race: RaceStatic, state: RaceSummaryState, toteStart: boolean): Record<string, unknown> {
  return {
    id: race.id,
    race_number: race.raceNumber,
    name: race.name,
    start_time: iso(state.startTime),
    ...(toteStart ? { tote_start_time: nzClock(state.startTime) } : {}),
    track_condition: state.trackCondition,
    distance: race.distance,
    weather: race.meeting.weather,
    country: race.meeting.country,
    state: race.meeting.state,
    status: state.status,
    // As in the real list: present for a decided protest (upheld or dismissed) or disqualification only.
    ...(state.protest ? { protest: true, protest_reason: state.protest.reason } : {}),
  };
}

/** A meeting's tote status: Closed once its last race is settled or abandoned, as in the real list. */
const toteStatus = (states: RaceSummaryState[]) =>
  states.every((s) => s.status === 'Final' || s.status === 'Abandoned') ? 'Closed' : 'Open';

/** Values of the members the real list adds to tote meetings. */
function extraValue(m: MeetingStatic, key: string, states: RaceSummaryState[]): unknown {
  switch (key) {
    case 'tote_raceday_date':
      return iso(m.date).slice(0, 10);
    case 'tote_status':
      return toteStatus(states);
    case 'tote_meeting_number':
      return m.toteMeetingNumber;
    default:
      return m.extras.values[key] ?? null;
  }
}

export function meetingRecord(
  meeting: MeetingStatic,
  states: RaceSummaryState[],
  single: boolean,
): Record<string, unknown> {
  const toteStart = single || meeting.extras.toteStartTime;
  const record: Record<string, unknown> = {
    meeting: meeting.id,
    name: meeting.name,
    date: iso(meeting.date),
    track_condition: states.at(-1)?.trackCondition ?? meeting.trackCondition,
    category: meeting.category,
    category_name: CATEGORY_NAMES[meeting.category] ?? meeting.category,
    country: meeting.country,
    state: meeting.state,
    races: meeting.races.map((r, i) => raceSummary(r, states[i] as RaceSummaryState, toteStart)),
  };
  const keys = single
    ? [
        'video_channels',
        'quaddie',
        'early_quaddie',
        'tote_meeting_number',
        'tote_raceday_date',
        'tote_status',
      ]
    : meeting.extras.extra;
  for (const key of keys) record[key] = extraValue(meeting, key, states);
  if (single) {
    record.video_channels ??= ['Trackside1'];
    record.quaddie = meeting.quaddie;
    record.early_quaddie = meeting.earlyQuaddie;
    Object.assign(record, {
      jetbet_club_name: '',
      club_day: 0,
      club_mnemonic: '',
      jetbet_track_name: meeting.name,
      sell_date: iso(meeting.date).slice(0, 10),
      // The fixed-odds-betting members as the real meeting has them: empty on a meeting that is not one.
      fob_mnemonic: '',
      fob_sell_date: '',
      fob_close_date: '',
      fob_complete_date: '',
      fob_club_day: 0,
      meeting_date: iso(meeting.date).slice(0, 10),
      // The real (Australian) meeting says INTL; an NZ track's code is modelled from its name.
      track_mnemonic:
        meeting.country === 'NZ'
          ? meeting.name
              .replace(/[^A-Za-z]/g, '')
              .slice(0, 4)
              .toUpperCase()
          : 'INTL',
      is_fob_meeting: false,
      meeting_type: '',
    });
  }
  return record;
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
        horse_id: uuidOf(r, 'horse'),
        barrier: r.barrier,
        weight: r.weight,
        jockey_name: r.jockey,
        jockey_id: uuidOf(r, 'jockey'),
        trainer_name: r.trainer,
        trainer_id: uuidOf(r, 'trainer'),
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

/** Ids of a runner's horse, jockey and trainer: derived from its entrant id. */
const uuidOf = (r: RunnerStatic, what: string) => rngFor(0, r.entrantId, what).uuid();
