/**
 * The static data the simulator is built from, shipped under ./data and loaded once:
 * - timetable.json: the real day's meetings and races (names, codes, countries, start offsets), trimmed;
 * - templates.json: one real race record, runner record, tote pools, dividend and result of /events/{id},
 *   used as templates so simulated payloads carry the same members in the same order as the real ones.
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

const load = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8')) as T;

export const timetable: Timetable = load<Timetable>('timetable.json');
export const templates: Templates = load<Templates>('templates.json');
