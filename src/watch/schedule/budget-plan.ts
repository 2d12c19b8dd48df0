/**
 * What the scheduler intends for each race now, and where the budget goes: the interval between a race's
 * fetches that the scheduler's rules give it at the current demand, and the requests a minute each slice
 * of the budget is planned to take (poll-policy.ts, `Slice`). Pure; the board judges a race's data age
 * against it (docs/board.md) and shows the slices planned beside spent, so a saturated budget reads as the
 * design it is.
 *
 * The rules (scheduler.ts), slice by slice:
 * - lateScratchings: each race every `lateScratchingMaxAgeMs` (or its minimum interval, if longer).
 * - earlyScratchings: races 1-3 h out every `earlyScratchingMaxAgeMs` if `earlyScratchingShare` of the
 *   races' requests covers them (stretched evenly over that share if not); FAR_SCRATCHING_SHARE of them
 *   spread evenly over the races further out. What the band does not take goes to the scored races. In a
 *   peak of races near their jump (peak.ts) the band is planned at its latest age (BAND_PEAK_GRACE_MS past
 *   the maximum) and the races further out at none: they wait for the trough.
 * - nearJump and postJump, scored: the due race with the largest weight x (time since its last fetch)^2 goes
 *   next. In steady state every race whose minimum interval does not hold it back is then fetched when that
 *   score reaches one common level L, so its interval is sqrt(L / weight); L is the level at which their
 *   requests add up to what the other slices leave. A race of weight 0 gets nothing while that is saturated.
 * A subscribed race is fetched at least every SUBSCRIBED_MAX_INTERVAL_MS whatever its slice. When the minimum
 * intervals alone ask for less than the budget, each race gets its minimum interval and the rest stays unspent.
 */

import { FINISHED_STATUSES, type RaceWatch } from '../track/race-watch.js';
import { BAND_PEAK_GRACE_MS, NEAR_JUMP_MS, nextPeakAt } from './peak.js';
import {
  DEFAULT_SETTINGS,
  FAR_SCRATCHING_SHARE,
  type FreshnessSettings,
  pollPolicy,
  SLICES,
  type Slice,
  SUBSCRIBED_MAX_INTERVAL_MS,
} from './poll-policy.js';

export interface BudgetPlanInput {
  races: Iterable<RaceWatch>;
  now: number;
  subscribers: ReadonlyMap<string, number>;
  /** Requests a minute (of the race clock) the budget leaves for races once discovery has its share. */
  racesPerMinute: number;
  /** The scheduler's trade-off, as the poller runs it. @default DEFAULT_SETTINGS */
  settings?: FreshnessSettings;
}

export interface BudgetPlan {
  /** Intended ms between two fetches of each race still to be fetched. */
  intervalMs: Map<string, number>;
  /** Whether the races ask for more than the budget: it is then spent in full, by design. */
  saturated: boolean;
  /** Share of the races' requests that goes to races near the jump (0 to 1). */
  nearJumpShare: number;
  /** How many races are near the jump. */
  nearJump: number;
  /** Requests a minute each slice of the races' budget is planned to take. */
  slices: Record<Slice, number>;
}

interface Demand {
  raceId: string;
  weight: number;
  minIntervalMs: number;
  subscribed: boolean;
  nearJump: boolean;
  slice: Slice;
  /** Open and 1-3 h from its advertised start (the early-scratching slice's first band). */
  within3h: boolean;
}

const isNearJump = (race: RaceWatch, now: number) =>
  !FINISHED_STATUSES.has(race.status) && race.startTime - now <= NEAR_JUMP_MS;

/** The interval a race gets at level `level` (weight x ms^2); weight 0 waits out a saturated budget. */
function intervalAt(d: Demand, level: number): number {
  const stretched = Math.max(
    d.minIntervalMs,
    d.weight > 0 ? Math.sqrt(level / d.weight) : level > 0 ? Infinity : 0,
  );
  return d.subscribed
    ? Math.min(stretched, Math.max(d.minIntervalMs, SUBSCRIBED_MAX_INTERVAL_MS))
    : stretched;
}

const rateAt = (demands: readonly Demand[], level: number) =>
  demands.reduce((sum, d) => sum + 1 / intervalAt(d, level), 0);

export function planBudget(input: BudgetPlanInput): BudgetPlan {
  const settings = input.settings ?? DEFAULT_SETTINGS;
  const demands: Demand[] = [];
  const races = [...input.races];
  for (const race of races) {
    const subscribers = input.subscribers.get(race.raceId) ?? 0;
    const policy = pollPolicy(race, input.now, subscribers);
    if (!policy) continue;
    demands.push({
      raceId: race.raceId,
      weight: policy.weight,
      minIntervalMs: policy.minIntervalMs,
      subscribed: subscribers > 0,
      nearJump: isNearJump(race, input.now),
      slice: policy.slice,
      within3h: race.startTime - input.now <= 3 * 3_600_000,
    });
  }
  const budget = Math.max(0, input.racesPerMinute) / 60_000;
  const intervalMs = new Map<string, number>();
  // Room for every race at its minimum interval: each gets it (races of weight 0 too: nothing else wants it).
  if (demands.reduce((sum, d) => sum + 1 / d.minIntervalMs, 0) <= budget) {
    for (const d of demands) intervalMs.set(d.raceId, d.minIntervalMs);
    return summary(demands, intervalMs, false);
  }
  const watched = (d: Demand, ms: number) =>
    d.subscribed ? Math.min(ms, Math.max(d.minIntervalMs, SUBSCRIBED_MAX_INTERVAL_MS)) : ms;
  // The scratching slices first: their rules do not depend on the scored races.
  for (const d of demands) {
    if (d.slice === 'lateScratchings') {
      intervalMs.set(d.raceId, watched(d, Math.max(d.minIntervalMs, settings.lateScratchingMaxAgeMs)));
    }
  }
  planEarly(demands, budget, settings, intervalMs, watched, nextPeakAt(races, input.now) <= input.now);
  const fixed = [...intervalMs.values()].reduce((sum, ms) => sum + 1 / ms, 0);
  const scored = demands.filter((d) => d.slice === 'nearJump' || d.slice === 'postJump');
  const left = Math.max(0, budget - fixed);
  const saturated = rateAt(scored, 0) > left;
  let level = 0;
  if (saturated) {
    // The rate falls as the level rises: find where it meets what is left (or the subscribed races' floor).
    let high = 1;
    while (rateAt(scored, high) > left && high < 1e30) high *= 2;
    let low = 0;
    for (let i = 0; i < 200; i++) {
      const mid = (low + high) / 2;
      if (rateAt(scored, mid) > left) low = mid;
      else high = mid;
    }
    level = high;
  }
  for (const d of scored) {
    const interval = intervalAt(d, level);
    if (Number.isFinite(interval)) intervalMs.set(d.raceId, interval);
  }
  return summary(demands, intervalMs, saturated);
}

function summary(
  demands: readonly Demand[],
  intervalMs: Map<string, number>,
  saturated: boolean,
): BudgetPlan {
  const slices = Object.fromEntries(SLICES.map((k) => [k, 0])) as Record<Slice, number>;
  let total = 0;
  let near = 0;
  for (const d of demands) {
    const interval = intervalMs.get(d.raceId);
    if (interval === undefined) continue;
    total += 1 / interval;
    slices[d.slice] += 60_000 / interval;
    if (d.nearJump) near += 1 / interval;
  }
  return {
    intervalMs,
    saturated,
    nearJumpShare: total > 0 ? near / total : 0,
    nearJump: demands.filter((d) => d.nearJump).length,
    slices,
  };
}

/**
 * The early-scratching slice (`budget`: the races' requests per ms): races 1-3 h out at their maximum age while
 * the early share covers them (evenly stretched over it if not); the far share evenly over the races further
 * out; none below its minimum interval.
 */
function planEarly(
  demands: readonly Demand[],
  budget: number,
  settings: FreshnessSettings,
  intervalMs: Map<string, number>,
  watched: (d: Demand, ms: number) => number,
  inPeak: boolean,
): void {
  const early = demands.filter((d) => d.slice === 'earlyScratchings');
  const band = early.filter((d) => d.within3h);
  const far = early.filter((d) => !d.within3h);
  const share = budget * settings.earlyScratchingShare;
  // In a peak (peak.ts) the band waits to its latest age and the far share takes no turn.
  const peakGrace = inPeak ? BAND_PEAK_GRACE_MS : 0;
  const bandMs = Math.max(
    settings.earlyScratchingMaxAgeMs + peakGrace,
    share > 0 ? band.length / share : Infinity,
  );
  const farShare = inPeak ? 0 : budget * FAR_SCRATCHING_SHARE;
  const farMs = farShare > 0 ? far.length / farShare : Infinity;
  for (const [races, ms] of [
    [band, bandMs],
    [far, farMs],
  ] as const) {
    for (const d of races) {
      const interval = watched(d, Math.max(d.minIntervalMs, ms));
      if (Number.isFinite(interval)) intervalMs.set(d.raceId, interval);
    }
  }
}
