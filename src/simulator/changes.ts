/** Shared pieces of the world model: time units, the price ladders, change records, a race's open state. */
import type { RaceStatic, RunnerState, TimedChange } from './model.js';

export const SECOND = 1000;
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * Prices on the real betting ladder: 0.05 steps to 3, 0.1 to 5, 0.5 to 10, 1 to 50, 5 beyond. The real
 * prices fix it: 2.35 and 2.45 (issue 22's second payload), 4.2 and 4.6, 5.5 to 8.5 by halves, 13, 31, 41.
 */
export function ladder(p: number): number {
  const x = Math.min(501, Math.max(1.1, p));
  const step = x < 3 ? 0.05 : x < 5 ? 0.1 : x < 10 ? 0.5 : x < 50 ? 1 : 5;
  return Math.round(Math.round(x / step) * step * 100) / 100;
}

/**
 * The fixed win-to-place divisor, (win - 1) / (place - 1), by places paid: 5 with three (the real Awapuni
 * payload: 5 -> 1.8, 7.5 -> 2.3, 13 -> 3.3), 7.7 with two (issue 22's second real payload, a 7-runner race;
 * not shipped with the project, so taken from the issue).
 */
export const FIXED_PLACE_DIVISOR = { three: 5, two: 7.7 } as const;

/**
 * Places paid by the number of starters (runners not scratched) at that instant: 3 with 8 or more, 2 with
 * 5 to 7, 1 (win only, no place betting) with 4 or fewer. The NZ/AUS tote rule, assumed: the real Awapuni
 * payload shows 3 with its 8 starters and issue 22's second one 2 with 7, nothing shipped shows 4 or fewer.
 */
export function placesPaidBy(starters: number): number {
  return starters >= 8 ? 3 : starters >= 5 ? 2 : 1;
}

/** Places paid in a race whose runners are in `runners`: by its runners not scratched. */
export function placesPaidIn(race: RaceStatic, runners: ReadonlyMap<string, RunnerState>): number {
  return placesPaidBy(race.runners.filter((r) => runners.get(r.entrantId)?.scratchedAt == null).length);
}

/**
 * Fixed place price of a fixed win price: 1 + (win - 1) / divisor up to ~15, shallower for long shots
 * (41 -> 7.5 in the real payload); 0.05 steps.
 */
export function placeOf(win: number, positionsPaid = 3): number {
  const base = positionsPaid >= 3 ? FIXED_PLACE_DIVISOR.three : FIXED_PLACE_DIVISOR.two;
  const divisor = base + Math.max(0, win - 15) / 25;
  return Math.max(1.01, Math.round((1 + (win - 1) / divisor) * 20) / 20);
}

export const byTime = (a: TimedChange, b: TimedChange) => a.at - b.at || a.seq - b.seq;

export function change(
  race: RaceStatic,
  at: number,
  seq: number,
  type: TimedChange['type'],
  detail: Record<string, unknown>,
  extra: Partial<TimedChange> = {},
): TimedChange {
  return { at, seq, raceId: race.id, meetingId: race.meeting.id, type, detail, scripted: false, ...extra };
}

/** Initial runner state at market open. */
export function openState(race: RaceStatic): Map<string, RunnerState> {
  return new Map(
    race.runners.map((r) => [
      r.entrantId,
      {
        fixedWin: r.openWin,
        fixedPlace: placeOf(r.openWin, placesPaidBy(race.runners.length)),
        flucs: [{ at: race.marketOpen, win: r.openWin }],
        scratchedAt: null,
        late: false,
        deduction: null,
        emergency: r.emergency,
      },
    ]),
  );
}

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayOf = (ms: number) => Math.floor(ms / DAY) * DAY;
