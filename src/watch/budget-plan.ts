/**
 * What the scheduler intends for each race now: the interval between its fetches that the scheduler's rule
 * gives it at the current demand, and where the budget goes. Pure; the board judges a race's data age
 * against it (docs/board.md), so a saturated budget reads as the design it is.
 *
 * The rule (scheduler.ts): the due race with the largest weight x (time since its last fetch)^2 goes next. In
 * steady state every race whose minimum interval does not hold it back is then fetched when that score
 * reaches one common level L, so its interval is sqrt(L / weight); L is the level at which the races'
 * requests add up to the rate the budget leaves them. A subscribed race is fetched at least every
 * SUBSCRIBED_MAX_INTERVAL_MS whatever its weight. A race of weight 0 (only a baseline to take) gets what
 * nothing else wants: nothing while the budget is saturated. When the minimum intervals alone ask for less
 * than the budget, each race gets its minimum interval and the rest of the budget stays unspent.
 */
import {
  DEFAULT_SETTINGS,
  type FreshnessSettings,
  pollPolicy,
  SUBSCRIBED_MAX_INTERVAL_MS,
} from './poll-policy.js';
import { FINISHED_STATUSES, type RaceWatch } from './race-watch.js';

/** A race within this of its advertised start, or past it and not finished, is near the jump. */
export const NEAR_JUMP_MS = 10 * 60_000;

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
}

interface Demand {
  raceId: string;
  weight: number;
  minIntervalMs: number;
  subscribed: boolean;
  nearJump: boolean;
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
  const demands: Demand[] = [];
  for (const race of input.races) {
    const subscribers = input.subscribers.get(race.raceId) ?? 0;
    const policy = pollPolicy(race, input.now, subscribers, input.settings ?? DEFAULT_SETTINGS);
    if (!policy) continue;
    demands.push({
      raceId: race.raceId,
      weight: policy.weight,
      minIntervalMs: policy.minIntervalMs,
      subscribed: subscribers > 0,
      nearJump: isNearJump(race, input.now),
    });
  }
  const budget = Math.max(0, input.racesPerMinute) / 60_000;
  const saturated = rateAt(demands, 0) > budget;
  let level = 0;
  if (saturated) {
    // The rate falls as the level rises: find where it meets the budget (or the subscribed races' floor).
    let high = 1;
    while (rateAt(demands, high) > budget && high < 1e30) high *= 2;
    let low = 0;
    for (let i = 0; i < 200; i++) {
      const mid = (low + high) / 2;
      if (rateAt(demands, mid) > budget) low = mid;
      else high = mid;
    }
    level = high;
  }
  const intervalMs = new Map<string, number>();
  let total = 0;
  let near = 0;
  for (const d of demands) {
    const interval = intervalAt(d, level);
    if (!Number.isFinite(interval)) continue;
    intervalMs.set(d.raceId, interval);
    total += 1 / interval;
    if (d.nearJump) near += 1 / interval;
  }
  return {
    intervalMs,
    saturated,
    nearJumpShare: total > 0 ? near / total : 0,
    nearJump: demands.filter((d) => d.nearJump).length,
  };
}
