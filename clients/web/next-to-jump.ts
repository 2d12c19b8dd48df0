/**
 * The next races to jump across every meeting and code, soonest first: what a punter looks at first. Pure:
 * the meetings and the server's time are passed in.
 */
import type { MeetingSummary } from './api.js';

export interface NextRace {
  raceId: string;
  meetingName: string;
  category: string;
  raceNumber: number;
  /** ms since the epoch. */
  start: number;
}

/** Statuses of a race still to jump. */
const TO_JUMP: ReadonlySet<string> = new Set(['Open', 'Upcoming']);
/**
 * A race an hour past its start and still listed open has stale status upstream, not a late jump: it is
 * left out so it cannot stay first in the strip for the rest of the day.
 */
const STALE_AFTER_MS = 60 * 60_000;

export function nextToJump(meetings: readonly MeetingSummary[], now: number, limit: number): NextRace[] {
  const races: NextRace[] = [];
  for (const m of meetings) {
    for (const r of m.races) {
      const start = Date.parse(r.startTime);
      if (!TO_JUMP.has(r.status) || !Number.isFinite(start) || start < now - STALE_AFTER_MS) continue;
      races.push({
        raceId: r.raceId,
        meetingName: m.name,
        category: m.category,
        raceNumber: r.raceNumber,
        start,
      });
    }
  }
  return races
    .sort(
      (a, b) =>
        a.start - b.start || a.meetingName.localeCompare(b.meetingName) || a.raceNumber - b.raceNumber,
    )
    .slice(0, limit);
}
