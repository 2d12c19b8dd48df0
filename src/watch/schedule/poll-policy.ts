/**
 * What a request for a race is worth: the rate at which the race's payload makes changes people want to
 * see soon, each kind weighed by its value, and the shortest interval worth fetching it at. Pure.
 *
 * The model (the Poisson change model of Cho & Garcia-Molina, "Effective page refresh policies for Web
 * crawlers", ACM TODS 28(4), 2003): each kind of change arrives at a rate that depends on where the race is
 * in its day. A change waits from when it happens until the next fetch; the scheduler spends each request
 * where the expected waiting it ends, weighed by value, is largest (scheduler.ts).
 *
 * - **Odds** (value 1, the unit) move at a rate that rises steeply toward the real jump: the real flucs put
 *   about three moves per runner in the last 30 minutes, bunched toward the close (density ~ t^-2/3 of the
 *   time t left; half of them in the last 3 to 4 minutes). The jump is not the advertised start: while the
 *   race is Open the rate is averaged over the measured jump delays still possible (jump-delay.ts), so a race
 *   Open 5 minutes past its advertised start is still near its jump, and one Closed is not.
 * - **Scratchings**: about one in three races sees an early scratching, spread over the 3 to 40 hours before
 *   the start; one in five a late one in its last hour. They are not scored: each has its own slice of the
 *   budget (`FreshnessSettings`, docs/operations.md#scheduler-budget-slices), so a race an hour out
 *   never competes with one at its jump; the rates below only set a race's minimum interval.
 * - **Results, dividends and status** (value RESULT_VALUE) after the jump: Interim until its dividends (under a
 *   minute, on a deadline: `dividendsDue`), then a protest lodged before Final (a few minutes). Discovery (one /meetings request for every race) sees status
 *   transitions and marks the race dirty, which the scheduler fetches first; this rate is for what discovery
 *   cannot see (dividends, placings). A Closed race is not polled: its results arrive only with Interim, which
 *   the listing shows.
 */

import { FINISHED_STATUSES, type RaceWatch, RUN_STATUSES } from '../track/race-watch.js';
import { remainingJumpDelays } from './jump-delay.js';
import { NEAR_JUMP_MS } from './peak.js';

/**
 * The budget's slices (issue 26). Discovery has a fixed rate of its own (DISCOVERY_INTERVAL_MS); the races'
 * requests go to: `postJump` (Closed to Final: a fetch when discovery lists a new status, polling only for
 * what the listing cannot show, dividends), `lateScratchings` (Open, 10-60 min from the advertised start:
 * each at least every `lateScratchingMaxAgeMs`), `earlyScratchings` (Open, more than an hour out: 1-3 h out
 * each at least every `earlyScratchingMaxAgeMs`, on a capped share of the race picks; further out a small
 * fixed share) and `nearJump` (Open, within 10 minutes of its advertised start or past it: the rest, by the
 * score).
 */
export type Slice = 'postJump' | 'lateScratchings' | 'earlyScratchings' | 'nearJump';
export const SLICES: readonly Slice[] = ['nearJump', 'postJump', 'lateScratchings', 'earlyScratchings'];

export interface PollPolicy {
  /** Value of the changes the race makes per second (odds moves near the jump are worth 1 each). */
  weight: number;
  /** No fetch sooner than this after the last one, even with budget to spare. */
  minIntervalMs: number;
  slice: Slice;
}

/** The budget's configured slices (docs/operations.md#scheduler-budget-slices). */
export interface FreshnessSettings {
  /** Each Open race within the hour of its start is fetched at least this often (late scratchings). */
  lateScratchingMaxAgeMs: number;
  /** At most this share (0-1) of the race picks goes to Open races 1-3 h out (early scratchings). */
  earlyScratchingShare: number;
  /** On those turns, a race 1-3 h out is fetched once not fetched for this long (or never fetched). */
  earlyScratchingMaxAgeMs: number;
}

/**
 * Defaults from the arithmetic of issue 26 at 100 requests a minute, busiest stretch of the simulated day:
 * ~40 races within the hour every 225 s (~11 a minute; a late scratching waits at most that and a turn,
 * within the 240 s goal); the ~75-105 races 1-3 h out every 18 minutes (~4-6 a minute, within the 20-minute
 * goal with 2 minutes for a round that falls due together), on at most 8 % of ~80 race picks a minute (~6.4:
 * a turn with no such race due goes to the races at their jump); the rest of the budget, less the far share
 * (FAR_SCRATCHING_SHARE), to the 9-10 races at their jump.
 */
export const DEFAULT_SETTINGS: FreshnessSettings = {
  lateScratchingMaxAgeMs: 225 * 1000,
  earlyScratchingShare: 0.08,
  earlyScratchingMaxAgeMs: 18 * 60 * 1000,
};

/**
 * Share of the race picks that goes to the Open races more than 3 h out (~1,100-1,400 of them at the busiest
 * stretch): each one's first document, then a visit about every 20 hours (~0.8 a minute). Their early
 * scratchings are seen at the latest when they enter the 1-3 h band, which fetches a race never fetched there
 * at once. At 0.02 (what the early share left over before, issue 26) they took ~2 requests a minute that the
 * races at their jump needed more.
 */
export const FAR_SCRATCHING_SHARE = 0.01;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Odds moves are worth 1 in the last NEAR_JUMP_S before the jump, where bets are placed, and less before. */
const NEAR_JUMP_S = NEAR_JUMP_MS / SECOND;
const EARLY_ODDS_VALUE = 0.05;
/** Odds moves of a race in its last ODDS_WINDOW_S before the jump (about three per runner of eight). */
const ODDS_MOVES = 24;
const ODDS_WINDOW_S = 30 * 60;
/** Mean odds rate over the last NEAR_JUMP_S: (NEAR_JUMP_S / ODDS_WINDOW_S)^(1/3) of the moves fall there. */
const NEAR_JUMP_MEAN_RATE = (ODDS_MOVES * (NEAR_JUMP_S / ODDS_WINDOW_S) ** (1 / 3)) / NEAR_JUMP_S;
/** The rate's singularity at the jump is cut here: no fetch can be closer than this to the close anyway. */
const ODDS_NEAREST_S = 5;
/** Scratchings per race per second: early ones over 3-40 h before the start, late ones in its last hour. */
const EARLY_SCRATCH_RATE = 0.45 / (37 * 3600);
const LATE_SCRATCH_RATE = 0.2 / 3600;
/**
 * A race at or past its advertised start counts this much more: its jump, and most of its moves, are due.
 * At x2 the moves after the start were seen faster than those before it (7.0 s against 9.1 s at the 95th
 * percentile on seed 7 of the freshness bench). x1.25 was tried before the band stepped aside in a peak
 * (seed 7's p95 stayed 8.6 s, its p50 went from 3.2 to 3.7 s); with it (peak.ts), x1.5 took seeds 8 and 9
 * from 2.9/8.0 and 3.6/8.6 s (p50/p95) to 3.0/7.7 and 3.3/8.3 s, seed 7 from 3.5/7.9 to 3.5/8.3 s
 * (docs/benchmarks.md, issue 26).
 */
const AT_START_WEIGHT = 1.5;
/**
 * A race more than EARLY_NEAR_JUMP_MS before its advertised start counts this much less: in a peak of the
 * freshness bench the races 6-10 minutes out took 23-26 % of the near-jump fetches for 4-6 % of the moves
 * (seeds 8 and 9, `bench/odds-tail.ts`; issue 26). Mild: the moves' full density (the square root of it, half-way
 * to the flat mean) put seed 7's moves before the start over the p95 goal.
 */
const EARLY_NEAR_JUMP_WEIGHT = 0.8;
const EARLY_NEAR_JUMP_MS = 6 * MINUTE;

/** The near-jump weight's factor for where the race stands against its advertised start. */
function nearJumpFactor(race: RaceWatch, now: number): number {
  if (race.startTime <= now) return AT_START_WEIGHT;
  return race.startTime - now > EARLY_NEAR_JUMP_MS ? EARLY_NEAR_JUMP_WEIGHT : 1;
}
const RESULT_VALUE = 1;
/** After the jump, per second: dividends due while Interim without them. */
const DIVIDENDS_DUE_RATE = 1 / 60;
/**
 * Interim with its dividends in, per second: what a fetch can still find that the listing cannot show before
 * it lists Final (which makes the race dirty), a protest lodged: 7 of the real day's 748 races, over an
 * Interim of about 5 minutes. Polled for Final at 1/1800 instead, Interim races took ~8 of every 100 requests,
 * more than discovery's whole view of every status (issue 26).
 */
const INTERIM_PROTEST_RATE = 7 / 748 / 300;

/**
 * Interim dividends follow the Interim status by 20-60 s (the simulator's model, src/simulator/lifecycle.ts;
 * the real payloads carry Interim rows beside the Final ones but no time for either). The race's Interim is
 * known from the listing that showed it, up to one listing interval (6 s) after it happened, so the dividends
 * can come from DIVIDENDS_FROM_MS after `interimAt` until DIVIDENDS_UNTIL_MS after it; in that window the race
 * is fetched every DIVIDENDS_EVERY_MS (a deadline, like the late-scratching one): polled by the score at the
 * result weight, below the races at their jump, they waited 10 s at the 95th percentile (issue 26). The first
 * look comes one interval into the window, not at its opening, where no dividends can have come yet: looked
 * at from 14 s, the first look at each race found nothing, and a race took 3.8-6.0 looks for its one find
 * (seeds 7-9 of the freshness bench, `requestYield`; with the first look one interval in and every 6 s, 3.0-5.0).
 * Past the window, dividends later than modelled are left to the score.
 */
const DIVIDENDS_FROM_MS = 14 * SECOND;
const DIVIDENDS_UNTIL_MS = 90 * SECOND;
/**
 * Every 7 s, not 5: the goal (dividends p95 at most 9 s) counts the Final dividends too, half of them, which
 * come with the listed Final (a fetch on the listed change, as fast as the status), so it is nearer the Interim
 * ones' 90th percentile: about 0.9 x 7 s and the 1-2 s a look waits for its slot. Measured (seeds 7-9 of the
 * freshness bench, first look one interval in): p95 5.9-6.5 s at 5 s (from 14 s), 6.0-6.5 s at 6 s, 6.5-6.8 s
 * at 7 s; the deadline's looks in the measured 35 minutes 96-137, 74-116 and 103 (seed 9; 116 at 6 s), and
 * seed 9's near-jump odds p50 / p95 3.4 / 8.1 s, 3.6 / 7.9 s and 3.3 / 7.7 s.
 */
const DIVIDENDS_EVERY_MS = 7 * SECOND;

/**
 * Whether `race` is due a look for its Interim dividends at `now`: in its window, and DIVIDENDS_EVERY_MS since
 * its last look or since the window opened, whichever is later.
 */
export function dividendsDue(race: RaceWatch, now: number): boolean {
  if (race.status !== 'Interim' || race.dividends !== 'none' || race.interimAt === undefined) return false;
  const opens = race.interimAt + DIVIDENDS_FROM_MS;
  if (now - race.interimAt > DIVIDENDS_UNTIL_MS) return false;
  return now - Math.max(race.lastFetchAt ?? Number.NEGATIVE_INFINITY, opens) >= DIVIDENDS_EVERY_MS;
}

/**
 * Whether `race`'s Interim dividends are the deadline's alone at `now` (its Interim listed at most
 * DIVIDENDS_UNTIL_MS ago): before the window they cannot have come, in it `dividendsDue` looks.
 */
const dividendsByDeadline = (race: RaceWatch, now: number): boolean =>
  race.interimAt !== undefined && now - race.interimAt <= DIVIDENDS_UNTIL_MS;

/** No fetch before a change is this likely (the budget is better left unspent than spent on nothing). */
const MIN_CHANGE_CHANCE = 0.002;
const MIN_INTERVAL_MS = 2 * SECOND;
const MAX_MIN_INTERVAL_MS = 20 * MINUTE;

/** Once Final (or Abandoned), a race is fetched until dividends are Final and confirmed, at most this long. */
export const SETTLE_TIMEOUT_MS = 30 * MINUTE;
/** A subscribed race counts this much more, and is fetched at least this often (the scheduler's rule). */
const SUBSCRIBED_BOOST = 2;
export const SUBSCRIBED_MAX_INTERVAL_MS = 10 * SECOND;
/**
 * Least weight of a subscribed race not finished (before the boost): one result every two minutes, what a
 * Closed race was polled at before discovery took that over. A subscriber waits for its document: after a
 * takeover, a Closed race at the jump must not queue behind races an hour out.
 */
const WATCHED_MIN_WEIGHT = 1 / 120;
/** After failures, a race waits longer (capped), so a broken race cannot eat the budget. */
const FAILURE_BACKOFF_CAP_MS = 5 * MINUTE;

/**
 * Policy for one race at `now`, or null when it needs no more fetches. Null depends only on the race and
 * stays null as `now` moves on (the scheduler remembers it: `overSince` in scheduler.ts).
 */
export function pollPolicy(race: RaceWatch, now: number, subscribers: number): PollPolicy | null {
  const rates = changeRates(race, now);
  if (!rates) return null;
  const slice = sliceOf(race, now);
  const changeRate = rates.odds + rates.scratching + rates.result;
  // Only the near-jump and post-jump slices are scored; the scratching slices have rules of their own.
  let weight =
    slice === 'nearJump'
      ? rates.oddsValue * nearJumpFactor(race, now)
      : slice === 'postJump'
        ? RESULT_VALUE * rates.result
        : 0;
  // Nothing expected (a Closed race, one over when listed): only the longest interval, with budget to spare.
  let minIntervalMs =
    changeRate > 0
      ? Math.min(MAX_MIN_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, (MIN_CHANGE_CHANCE / changeRate) * SECOND))
      : MAX_MIN_INTERVAL_MS;
  if (subscribers > 0) {
    // Watched and not over: worth a fetch every SUBSCRIBED_MAX_INTERVAL_MS even when nothing is expected
    // (a Closed race), so the scheduler's subscribed rule applies; the floor ranks it below any race with
    // something to see.
    if (!FINISHED_STATUSES.has(race.status)) weight = Math.max(weight, WATCHED_MIN_WEIGHT);
    weight *= SUBSCRIBED_BOOST;
    minIntervalMs = Math.min(minIntervalMs, SUBSCRIBED_MAX_INTERVAL_MS);
  }
  if (race.failures > 0) {
    minIntervalMs = Math.max(minIntervalMs, Math.min(FAILURE_BACKOFF_CAP_MS, SECOND * 2 ** race.failures));
  }
  return { weight, minIntervalMs, slice };
}

/** The slice a race's next fetch belongs to, by its status and its advertised start. */
export function sliceOf(race: RaceWatch, now: number): Slice {
  if (FINISHED_STATUSES.has(race.status) || RUN_STATUSES.has(race.status)) return 'postJump';
  const toStart = race.startTime - now;
  if (toStart <= NEAR_JUMP_S * SECOND) return 'nearJump';
  return toStart <= HOUR ? 'lateScratchings' : 'earlyScratchings';
}

/** Expected changes per second by kind; `oddsValue` is the odds rate weighed by each move's value. */
export interface ChangeRates {
  odds: number;
  oddsValue: number;
  scratching: number;
  result: number;
}

/** Expected changes per second by kind, or null when the race will change no more (for good: see pollPolicy). */
export function changeRates(race: RaceWatch, now: number): ChangeRates | null {
  const none = { odds: 0, oddsValue: 0, scratching: 0, result: 0 };
  if (FINISHED_STATUSES.has(race.status)) {
    const confirmed =
      race.lastGoodAt !== undefined && race.finishedAt !== undefined && race.lastGoodAt >= race.finishedAt;
    const settled = race.status === 'Abandoned' || race.dividends === 'final';
    // A held claim (a Final after an upheld protest: trust.ts) needs the fetch that confirms it, or the Final
    // and its placings are never published (measured: seed 9 of the freshness bench, two such races).
    if (race.pending) return { ...none, result: DIVIDENDS_DUE_RATE };
    if (confirmed && (settled || now - (race.finishedAt ?? now) > SETTLE_TIMEOUT_MS)) return null;
    // A race already over when discovery first listed it will change no more: its one baseline fetch is
    // worth nothing to freshness (weight 0: only budget nothing else wants). One that finished while
    // watched is waiting for Final dividends or its confirming fetch.
    const finishedBeforeSeen = (race.finishedAt ?? now) <= race.discoveredAt;
    return { ...none, result: finishedBeforeSeen ? 0 : DIVIDENDS_DUE_RATE };
  }
  if (race.status === 'Interim') {
    // Until its window ends the deadline alone looks for its dividends (`dividendsDue`): scored at the
    // dividends' rate from its Interim fetch on, Interim races won 1.3-1.7 picks a minute that found nothing
    // (seeds 7-9 of the freshness bench, `requestYield`: 46-60 in the measured 35 minutes, about 22 of them
    // before the window opened; issue 26), and would win the interval before the deadline's first look.
    if (race.dividends === 'none' && !race.pending && race.failures === 0 && dividendsByDeadline(race, now))
      return none;
    const due = race.dividends === 'none' || race.pending;
    return { ...none, result: due ? DIVIDENDS_DUE_RATE : INTERIM_PROTEST_RATE };
  }
  // Results come with Interim, which discovery lists (the race is then dirty): nothing to poll for.
  if (race.status === 'Closed') return none;
  // Not jumped yet, however late: odds by the jumps still possible, scratchings by the advertised start.
  const toStart = race.startTime - now;
  const odds = expectedOddsRate(race, now);
  return {
    odds: odds.rate,
    oddsValue: odds.valued,
    scratching: toStart > HOUR ? EARLY_SCRATCH_RATE : LATE_SCRATCH_RATE,
    result: 0,
  };
}

/** Odds moves per second at `secondsToJump` before the jump. */
function oddsRate(secondsToJump: number): number {
  if (secondsToJump > ODDS_WINDOW_S) return 0;
  const x = Math.max(ODDS_NEAREST_S, secondsToJump) / ODDS_WINDOW_S;
  return (ODDS_MOVES / (3 * ODDS_WINDOW_S)) * x ** (-2 / 3);
}

/**
 * Value-weighted odds rate. Near the jump, the moves' mean rate over the last NEAR_JUMP_S, flat: the
 * square-root allocation of the raw rate (t^-2/3) starves races 5-10 minutes out, whose moves then wait
 * 20 s and more at the 95th percentile (measured), while someone about to bet wants every price of the
 * last minutes fresh. Before that, the raw rate at EARLY_ODDS_VALUE.
 */
function oddsValueRate(secondsToJump: number): number {
  if (secondsToJump <= NEAR_JUMP_S) return NEAR_JUMP_MEAN_RATE;
  return oddsRate(secondsToJump) * EARLY_ODDS_VALUE;
}

/** The odds rate averaged over the jumps still possible for a race not yet Closed. */
function expectedOddsRate(race: RaceWatch, now: number): { rate: number; valued: number } {
  const toStartS = (race.startTime - now) / SECOND;
  if (toStartS > ODDS_WINDOW_S) return { rate: 0, valued: 0 };
  const delays = remainingJumpDelays(race.country, -toStartS);
  let sum = 0;
  let valued = 0;
  for (const d of delays) {
    sum += oddsRate(toStartS + d);
    valued += oddsValueRate(toStartS + d);
  }
  return { rate: sum / delays.length, valued: valued / delays.length };
}
