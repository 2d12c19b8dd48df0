/**
 * How much a race deserves the next request: a weight (its share of the budget when demand exceeds it) and
 * a minimum interval (no point fetching more often, even with budget to spare). Pure.
 *
 * The shape follows where users need freshness: prices move most from ~30 minutes before the advertised
 * start to a couple of minutes after it; results and dividends arrive minutes after the jump; a race
 * hours away changes rarely. Status transitions of every race are also seen by discovery (one /meetings
 * request covers all races), which marks a race dirty so it is fetched at once.
 */
import { FINISHED_STATUSES, type RaceWatch } from './race-watch.js';

export interface PollPolicy {
  weight: number;
  minIntervalMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Phases by time to the advertised start (ms; negative once it has passed), nearest first. */
const PHASES: ReadonlyArray<{ until: number; weight: number; minIntervalMs: number; name: string }> = [
  { name: 'near-jump', until: 10 * MINUTE, weight: 12, minIntervalMs: 3 * SECOND },
  { name: 'warming', until: 30 * MINUTE, weight: 1.5, minIntervalMs: 30 * SECOND },
  { name: 'hour', until: 60 * MINUTE, weight: 0.3, minIntervalMs: 2 * MINUTE },
  { name: 'later', until: 3 * 60 * MINUTE, weight: 0.3, minIntervalMs: 5 * MINUTE },
  { name: 'far', until: Number.POSITIVE_INFINITY, weight: 0.1, minIntervalMs: 20 * MINUTE },
];

/** Once Final (or Abandoned), a race is fetched until dividends are Final and confirmed, at most this long. */
export const SETTLE_TIMEOUT_MS = 30 * MINUTE;
/** A subscribed race counts this much more, and is fetched at least this often (the scheduler's rule). */
const SUBSCRIBED_BOOST = 2;
export const SUBSCRIBED_MAX_INTERVAL_MS = 10 * SECOND;
/** After failures, a race waits longer (capped), so a broken race cannot eat the budget. */
const FAILURE_BACKOFF_CAP_MS = 5 * MINUTE;

/** Policy for one race at `now`, or null when it needs no more fetches. */
export function pollPolicy(race: RaceWatch, now: number, subscribers: number): PollPolicy | null {
  const base = basePolicy(race, now);
  if (!base) return null;
  let { weight, minIntervalMs } = base;
  if (subscribers > 0) {
    weight *= SUBSCRIBED_BOOST;
    minIntervalMs = Math.min(minIntervalMs, SUBSCRIBED_MAX_INTERVAL_MS);
  }
  if (race.failures > 0) {
    minIntervalMs = Math.max(minIntervalMs, Math.min(FAILURE_BACKOFF_CAP_MS, SECOND * 2 ** race.failures));
  }
  return { weight, minIntervalMs };
}

function basePolicy(race: RaceWatch, now: number): PollPolicy | null {
  if (FINISHED_STATUSES.has(race.status)) {
    const confirmed =
      race.lastGoodAt !== undefined && race.finishedAt !== undefined && race.lastGoodAt >= race.finishedAt;
    const settled = race.status === 'Abandoned' || race.dividends === 'final';
    if (confirmed && (settled || now - (race.finishedAt ?? now) > SETTLE_TIMEOUT_MS)) return null;
    // A race already over when discovery first listed it only needs its one baseline fetch, which can wait
    // for spare budget; one that finished while watched is waiting for Final dividends or its confirmation.
    const finishedBeforeSeen = (race.finishedAt ?? now) <= race.discoveredAt;
    return { weight: finishedBeforeSeen ? 0.05 : 2, minIntervalMs: 10 * SECOND };
  }
  const toJump = race.startTime - now;
  if (toJump < -2 * MINUTE) {
    // Jumped and not Final: in running, or Interim awaiting the official result. Prices settle within a
    // couple of minutes of the start; after that what matters is results and status transitions, which
    // discovery sees for every race at once and turns into an immediate fetch (dirty), so a modest
    // share here is enough to catch what discovery cannot see (changed placings, dividends).
    // Interim results are in and dividends are due within a minute or two: that is what consumers wait for.
    if (race.status === 'Interim' && race.dividends === 'none')
      return { weight: 8, minIntervalMs: 4 * SECOND };
    return { weight: 2, minIntervalMs: 10 * SECOND };
  }
  const phase = PHASES.find((p) => toJump <= p.until)!;
  return { weight: phase.weight, minIntervalMs: phase.minIntervalMs };
}
