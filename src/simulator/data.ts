/**
 * The static data the simulator is built from, shipped under ./data and loaded once:
 * - timetable.json: the real day's meetings and races (names, codes, countries, start offsets), trimmed;
 * - templates.json: one real race record, runner record, tote pools, dividend and result of /events/{id},
 *   used as templates so simulated payloads carry the same members in the same order as the real ones;
 * - jumps.json, form.json and meetings.json: measured from the real payloads by derive-data.ts (jump
 *   delays by region; the long runner members as templates; what the real list adds to each meeting).
 */
import { readFileSync } from 'node:fs';

/** [race_number, name, start offset in seconds from the timetable's day at 00:00 UTC, distance, track, weather, abandoned] */
export type TimetableRace = [number, string, number, number, string, string, boolean];
/** [name, category, country, state, track_condition, races] */
export type TimetableMeeting = [string, string, string, string, string, TimetableRace[]];

export interface Timetable {
  day: string;
  meetings: TimetableMeeting[];
}

export interface Templates {
  race: Record<string, unknown>;
  runner: Record<string, unknown>;
  totePools: Record<string, unknown>[];
  dividend: Record<string, unknown>;
  result: Record<string, unknown>;
}

/** Actual minus advertised start in seconds, sorted, per region of the real races list. */
export interface Jumps {
  source: string;
  northAmerica: number[];
  elsewhere: number[];
}

/** What the real meetings list adds to each meeting beyond the nine members every meeting has. */
export interface MeetingExtras {
  name: string;
  /** Extra members in the real order, e.g. video_channels, quaddie, tote_meeting_number, tote_status. */
  extra: string[];
  /** Their static values (video channels, quaddie legs, doubles, trebles, tote meeting number). */
  values: Record<string, unknown>;
  /** Whether its race summaries carry tote_start_time. */
  toteStartTime: boolean;
}

export interface FormTemplates {
  lastStarts: Record<string, string>[];
  lastStartsCounts: number[];
  winHistory: { details: string }[];
  picks: Record<string, unknown>[];
}

const load = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8')) as T;

export const timetable: Timetable = load<Timetable>('timetable.json');
export const templates: Templates = load<Templates>('templates.json');
export const jumps: Jumps = load<Jumps>('jumps.json');
export const formTemplates: FormTemplates = load<FormTemplates>('form.json');
export const meetingExtras: MeetingExtras[] = load<MeetingExtras[]>('meetings.json');
