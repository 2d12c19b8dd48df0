/**
 * Meeting-level events from two successive views of the day's meetings (discovery): races added to or
 * removed from a meeting, and meetings that appear. Pure. A meeting that vanishes from a list, or a race
 * list that comes back empty, is treated as a partial answer rather than removals.
 */
import type { DetectedMeetingEvent, MeetingRaceRef, MeetingRef } from '@racewire/client/protocol';
import type { Meeting, RaceSummary } from '../../upstream/schemas.js';

const meetingRef = (m: Meeting): MeetingRef => ({
  meetingId: m.meeting,
  name: m.name,
  date: m.date,
  category: m.category,
  country: m.country,
});

const raceRef = (r: RaceSummary): MeetingRaceRef => ({
  raceId: r.id,
  raceNumber: r.race_number,
  name: r.name,
  startTime: r.start_time,
  status: r.status,
});

const byNumber = (a: RaceSummary, b: RaceSummary) => a.race_number - b.race_number || (a.id < b.id ? -1 : 1);

const racesOf = (m: Meeting): RaceSummary[] => (Array.isArray(m.races) ? m.races : []);

/**
 * Events for meetings in `next` compared with `prev`, in `next`'s meeting order, races by race number.
 * With no previous meetings at all (a first look) there are none.
 */
export function detectMeetingChanges(
  prev: readonly Meeting[],
  next: readonly Meeting[],
): DetectedMeetingEvent[] {
  if (prev.length === 0) return [];
  const before = new Map(prev.map((m) => [m.meeting, m]));
  const out: DetectedMeetingEvent[] = [];
  for (const m of next) {
    const meeting = meetingRef(m);
    const old = before.get(m.meeting);
    if (!old) {
      out.push({
        type: 'meeting.added',
        meetingId: m.meeting,
        data: { meeting, races: [...racesOf(m)].sort(byNumber).map(raceRef) },
      });
      continue;
    }
    const oldIds = new Set(racesOf(old).map((r) => r.id));
    const newRaces = racesOf(m);
    const newIds = new Set(newRaces.map((r) => r.id));
    for (const r of [...newRaces].sort(byNumber)) {
      if (!oldIds.has(r.id)) {
        out.push({ type: 'meeting.race_added', meetingId: m.meeting, data: { meeting, race: raceRef(r) } });
      }
    }
    if (newRaces.length === 0) continue;
    for (const r of [...racesOf(old)].sort(byNumber)) {
      if (!newIds.has(r.id)) {
        out.push({ type: 'meeting.race_removed', meetingId: m.meeting, data: { meeting, race: raceRef(r) } });
      }
    }
  }
  return out;
}
