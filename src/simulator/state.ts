/** A race's state at an instant: its open state folded with every change up to that instant. Pure. */

import { openState } from './changes.js';
import type { RaceState, RaceStatic, RunnerState, TimedChange } from './model.js';

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

/** The state after the first `count` changes; `runners` is left empty when `withRunners` is false. */
export function foldState(
  race: RaceStatic,
  list: readonly TimedChange[],
  count: number,
  withRunners = true,
): RaceState {
  const state: RaceState = {
    status: 'Open',
    startTime: race.advertisedStart,
    actualStart: null,
    closedAt: null,
    trackCondition: race.meeting.trackCondition,
    runners: withRunners ? openState(race) : new Map(),
    results: null,
    dividends: [],
    protest: null,
  };
  for (let i = 0; i < count; i++) apply(state, list[i] as TimedChange);
  return state;
}

function apply(state: RaceState, c: TimedChange): void {
  const d = c.detail;
  const runner: RunnerState | undefined =
    typeof d.entrantId === 'string' ? state.runners.get(d.entrantId) : undefined;
  switch (c.type) {
    case 'odds':
      if (!runner) return;
      runner.fixedWin = d.fixedWin as number;
      runner.fixedPlace = d.fixedPlace as number;
      // A fold starts from fresh open-state arrays, so they can grow in place.
      runner.flucs.push({ at: c.at, win: runner.fixedWin });
      return;
    case 'scratching':
      if (!runner) return;
      runner.scratchedAt = c.at;
      runner.late = d.late === true;
      runner.deduction = (d.deduction as RunnerState['deduction']) ?? null;
      return;
    case 'promotion':
      if (!runner) return;
      runner.emergency = null;
      return;
    case 'reinstatement':
      if (!runner) return;
      runner.scratchedAt = null;
      runner.late = false;
      runner.deduction = null;
      return;
    case 'status':
      state.status = d.to as string;
      if (d.to !== 'Open' && state.closedAt === null) state.closedAt = c.at;
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
      state.protest = { reason: String(d.reason ?? '') };
      state.results = c.results ?? state.results;
      return;
    case 'dividends':
      // Interim rows stay beside the Final ones, interleaved in no fixed order as in the real data
      // (IFIFFFFIIIFIIF): ordered by their ids, which are random.
      state.dividends = [...state.dividends, ...(c.dividends ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
      return;
  }
}
