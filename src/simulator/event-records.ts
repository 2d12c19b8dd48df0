/**
 * The race record of /events: the real one as a template with this race's values (`protest` and
 * `protest_reason` only once a protest is decided, as in the real list).
 */
import { placesPaidBy } from './changes.js';
import { templates } from './data.js';
import type { RaceState, RaceStatic, RunnerStatic } from './model.js';
import { iso, nzClock } from './payloads.js';
import { rngFor } from './rng.js';
import { spriteUrl } from './silks.js';

const PHRASES = [
  'has been racing well and can figure in the finish',
  'steps up in distance and should appreciate it',
  'resumes from a spell and may need the run',
  'drew well and will be hard to hold out',
  'was only narrowly beaten last start',
  'is in good form and respected',
];

const CLOSERS = [
  'Include in all combinations.',
  'Has place claims here.',
  'Capable of a top 4 finish.',
  'Respected.',
];

/** The form comment: two sentences on each of the first six runners, about as long as the real one. */
function comment(race: RaceStatic, live: RunnerStatic[]): string {
  const rng = rngFor(0, race.id, 'comment');
  return live
    .slice(0, 6)
    .map(
      (r) =>
        `${r.name.toUpperCase()} (${r.number}) ${rng.pick(PHRASES)}, and ${rng.pick(PHRASES)}. ${rng.pick(CLOSERS)}`,
    )
    .join(' ');
}

/** The real video_channels_meta, for this race's venue and start. */
function videoMeta(race: RaceStatic, start: number): unknown {
  const meta = templates.race.video_channels_meta as Record<string, Record<string, unknown>> | null;
  if (!meta) return null;
  return Object.fromEntries(
    Object.entries(meta).map(([channel, v]) => [
      channel,
      {
        ...v,
        RaceNo: race.raceNumber,
        RaceType: race.meeting.category,
        VenueName: race.meeting.name,
        UtcRaceStartTime: iso(start),
        VenueCountryCode: race.meeting.country,
        DisplayRaceStartTime: iso(start + 10 * 3_600_000).slice(0, 19),
      },
    ]),
  );
}

const startString = (ms: number) => `${iso(ms).replace('T', ' ').slice(0, 19)} +0000 UTC`;

export function raceRecord(
  race: RaceStatic,
  state: RaceState,
  live: RunnerStatic[],
  silkBase: string,
  tips: string[],
) {
  const m = race.meeting;
  const actual = state.actualStart === null ? 0 : Math.floor(state.actualStart / 1000);
  return {
    ...templates.race,
    event_id: race.id,
    meeting_name: m.name,
    display_meeting_name: m.name,
    meeting_id: m.id,
    status: state.status,
    description: race.name,
    advertised_start: Math.floor(state.startTime / 1000),
    actual_start: actual,
    advertised_start_string: startString(state.startTime),
    actual_start_string: actual ? startString(actual * 1000) : '',
    race_date_nz: new Date(state.startTime + 12 * 3_600_000).toISOString().slice(0, 10),
    start_time_nz: `${nzClock(state.startTime)} NZST`,
    race_number: race.raceNumber,
    type: m.category,
    start_type: m.category === 'H' ? 'Mobile' : '',
    country: m.country,
    state: m.state,
    distance: race.distance,
    weather: m.weather,
    comment: comment(race, live),
    silk_base_url: silkBase.replace(/^https?:\/\//, ''),
    track_condition: state.trackCondition,
    silk_url: spriteUrl(silkBase, race.id, 64),
    entrant_count: race.runners.length,
    // The field: emergencies still waiting for a start are not in it.
    field_size: live.filter((r) => state.runners.get(r.entrantId)?.emergency == null).length,
    positions_paid: placesPaidBy(live.length),
    video_channels: (m.extras.values.video_channels as string[] | undefined) ?? ['Trackside1'],
    video_channels_meta: videoMeta(race, state.startTime),
    tips,
    ...(state.protest ? { protest: true, protest_reason: state.protest.reason } : {}),
  };
}
