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
 * Fixed place price of a fixed win price. Fitted to the real payload: with three places paid the place
 * price is 1 + (win - 1) / 5 up to ~15 (5 -> 1.8, 7.5 -> 2.3, 13 -> 3.3), and shallower for long shots
 * (41 -> 7.5); 0.05 steps.
 */
export function placeOf(win: number, positionsPaid = 3): number {
  const divisor = (positionsPaid >= 3 ? 5 : 3.5) + Math.max(0, win - 15) / 25;
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
        fixedPlace: placeOf(r.openWin, race.positionsPaid),
        flucs: [{ at: race.marketOpen, win: r.openWin }],
        scratchedAt: null,
        late: false,
        deduction: null,
      },
    ]),
  );
}

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayOf = (ms: number) => Math.floor(ms / DAY) * DAY;
