/**
 * A race day in miniature for scheduler tests: the real timetable, a deterministic status model by time,
 * and a loop that gives the scheduler one request slot at a time, as a saturated limiter would.
 */
import { readFileSync } from 'node:fs';
import { type Meeting, meetingsResponseSchema } from '../../src/upstream/schemas.js';
import { applyMeetings } from '../../src/watch/schedule/discovery.js';
import { pickNext, usesTurn } from '../../src/watch/schedule/scheduler.js';
import { type DividendStage, FINISHED_STATUSES, type RaceWatch } from '../../src/watch/track/race-watch.js';

export function loadTimetable(): Meeting[] {
  const raw = JSON.parse(
    readFileSync(new URL('../fixtures/real/meetings-day.json', import.meta.url), 'utf8'),
  );
  return meetingsResponseSchema.parse(raw).data.meetings;
}

const MIN = 60_000;
/** Status of a race at `t` in this model: Open, Closed at the jump, Interim +3 min, Final +8 min. */
export function modelStatus(start: number, t: number): string {
  if (t < start) return 'Open';
  if (t < start + 3 * MIN) return 'Closed';
  if (t < start + 8 * MIN) return 'Interim';
  return 'Final';
}
export const dividendsFinalAt = (start: number) => start + 10 * MIN;
/** Interim dividends a minute after Interim results; Final ones at dividendsFinalAt. */
export function dividendStage(start: number, t: number): DividendStage {
  if (t >= dividendsFinalAt(start)) return 'final';
  return t >= start + 4 * MIN ? 'interim' : 'none';
}

export interface Fetch {
  at: number;
  raceId: string;
}

/**
 * Runs the scheduler from `from` to `to` with one request every `slotMs`; discovery every `discoveryMs`. It
 * starts knowing nothing but the timetable (no race fetched yet), as a poller does after a start or takeover.
 */
export function runVirtualDay(opts: {
  meetings: Meeting[];
  from: number;
  to: number;
  slotMs: number;
  discoveryMs: number;
  subscribers?: ReadonlyMap<string, number>;
}): { fetches: Fetch[]; discoveries: number[]; races: Map<string, RaceWatch> } {
  const withStatus = (t: number): Meeting[] =>
    opts.meetings.map((m) => ({
      ...m,
      races: m.races.map((r) => ({ ...r, status: modelStatus(Date.parse(r.start_time), t) })),
    }));
  let races = applyMeetings(new Map(), withStatus(opts.from), opts.from).races;
  let discoveryDueAt = opts.from + opts.discoveryMs;
  const fetches: Fetch[] = [];
  const discoveries: number[] = [];
  let racePicks = 0;
  for (let t = opts.from; t < opts.to; t += opts.slotMs) {
    const pick = pickNext({
      races: races.values(),
      now: t,
      inFlight: new Set(),
      subscribers: opts.subscribers ?? new Map(),
      discoveryDueAt,
      discoveryInFlight: false,
      racePicks,
    });
    if (pick.kind === 'discovery') {
      races = applyMeetings(races, withStatus(t), t).races;
      discoveryDueAt = t + opts.discoveryMs;
      discoveries.push(t);
    } else if (pick.kind === 'race') {
      if (usesTurn(pick, racePicks)) racePicks++;
      const race = races.get(pick.raceId)!;
      const status = modelStatus(race.startTime, t);
      races.set(race.raceId, {
        ...race,
        status,
        lastFetchAt: t,
        lastGoodAt: t,
        dirty: false,
        dividends: dividendStage(race.startTime, t),
        finishedAt: race.finishedAt ?? (FINISHED_STATUSES.has(status) ? t : undefined),
      });
      fetches.push({ at: t, raceId: race.raceId });
    }
  }
  return { fetches, discoveries, races };
}
