/** A race's state at an instant: its open state folded with every change up to that instant. Pure. */

import { openState } from './changes.js';
import type { RaceState, RaceStatic, TimedChange } from './model.js';

/** Number of changes in the sorted `list` with `at <= t` (binary search). */
export function appliedCount(list: readonly TimedChange[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as TimedChange).at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function foldState(race: RaceStatic, list: readonly TimedChange[], count: number): RaceState {
  const state: RaceState = {
    status: 'Open',
    startTime: race.advertisedStart,
    actualStart: null,
    trackCondition: race.meeting.trackCondition,
    runners: openState(race),
    results: null,
    dividends: [],
    protest: false,
    moves: 0,
  };
  for (let i = 0; i < count; i++) apply(state, list[i] as TimedChange);
  return state;
}

function apply(state: RaceState, c: TimedChange): void {
  const d = c.detail;
  const runner = typeof d.entrantId === 'string' ? state.runners.get(d.entrantId) : undefined;
  switch (c.type) {
    case 'odds':
      if (!runner) return;
      runner.fixedWin = d.fixedWin as number;
      runner.fixedPlace = d.fixedPlace as number;
      runner.poolWin = d.poolWin as number;
      runner.poolPlace = d.poolPlace as number;
      runner.flucs = [...runner.flucs, { at: c.at, win: runner.fixedWin }];
      state.moves++;
      return;
    case 'scratching':
      if (!runner) return;
      runner.scratchedAt = c.at;
      runner.late = d.late === true;
      return;
    case 'reinstatement':
      if (!runner) return;
      runner.scratchedAt = null;
      runner.late = false;
      return;
    case 'status':
      state.status = d.to as string;
      if (d.to === 'Closed' && state.actualStart === null) state.actualStart = c.at;
      return;
    case 'start_time':
      state.startTime = Date.parse(d.to as string);
      return;
    case 'track_condition':
      state.trackCondition = d.to as string;
      return;
    case 'results':
      state.results = c.results ?? null;
      return;
    case 'protest':
      state.protest = true;
      state.results = c.results ?? state.results;
      return;
    case 'dividends':
      // Interim rows stay beside the Final ones, as in the real data.
      state.dividends = [...state.dividends, ...(c.dividends ?? [])];
      return;
  }
}
