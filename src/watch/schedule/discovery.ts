/**
 * Discovery: fold a /meetings response into what the scheduler knows. Pure.
 *
 * One request lists every race of the day with its status and advertised start, so it is the cheap way to
 * learn new races, delays and status transitions; a race whose listed status or start differs from what
 * its last fetch showed is marked dirty so the scheduler fetches it next.
 */
import type { Meeting } from '../../upstream/schemas.js';
import { FINISHED_STATUSES, type RaceWatch } from '../track/race-watch.js';

export interface DiscoveryResult {
  races: Map<string, RaceWatch>;
  added: string[];
  /** Races whose status or start time discovery saw change. */
  changed: string[];
}

export function applyMeetings(
  known: ReadonlyMap<string, RaceWatch>,
  meetings: Meeting[],
  now: number,
): DiscoveryResult {
  const races = new Map(known);
  const added: string[] = [];
  const changed: string[] = [];
  for (const meeting of meetings) {
    for (const summary of meeting.races) {
      const startTime = Date.parse(summary.start_time);
      if (!Number.isFinite(startTime)) continue; // untrusted: a race without a usable start cannot be scheduled
      const prev = races.get(summary.id);
      if (!prev) {
        races.set(summary.id, {
          raceId: summary.id,
          meetingId: meeting.meeting,
          meetingName: meeting.name,
          raceNumber: summary.race_number,
          name: summary.name,
          country: summary.country ?? meeting.country,
          category: meeting.category,
          startTime,
          status: summary.status,
          discoveredAt: now,
          dirty: false,
          dividends: 'none',
          failures: 0,
          finishedAt: FINISHED_STATUSES.has(summary.status) ? now : undefined,
          interimAt: summary.status === 'Interim' ? now : undefined,
        });
        added.push(summary.id);
        continue;
      }
      if (prev.status === summary.status && prev.startTime === startTime) continue;
      races.set(summary.id, {
        ...prev,
        status: summary.status,
        startTime,
        dirty: true,
        finishedAt: prev.finishedAt ?? (FINISHED_STATUSES.has(summary.status) ? now : undefined),
        interimAt: prev.interimAt ?? (summary.status === 'Interim' ? now : undefined),
      });
      changed.push(summary.id);
    }
  }
  return { races, added, changed };
}
