/**
 * Which request to make next: a pure function of the known races, the clock, the subscriptions and what is
 * already in flight. The poller asks it whenever the limiter has a slot.
 *
 * Rule: spend each request where it ends the most expected waiting, weighed by value. A race whose changes
 * of value arrive at rate w (poll-policy.ts) and was last fetched a seconds ago holds on average w x a^2 / 2
 * of value-seconds of changes nobody has seen; fetching it ends them. Taking the race with the largest such
 * score (among those whose minimum interval has passed) polls each race when its score reaches a common
 * level, which under a saturated budget gives intervals proportional to 1 / sqrt(w): the allocation that
 * minimises the mean value-weighted detection latency for Poisson changes (the square-root rule of the
 * revisit-policy literature; Cho & Garcia-Molina, ACM TODS 2003). A race twice as busy is fetched about 1.4x
 * as often, not 2x, so quiet races still get their turn.
 *
 * Hard rules before the score: discovery first when it is due; then a race discovery marked dirty (urgent);
 * then a subscribed race not fetched for SUBSCRIBED_MAX_INTERVAL_MS (someone is watching it, and under a
 * saturated budget the score alone would leave a race an hour out unfetched for minutes).
 *
 * A subscribed race with no document yet (never fetched by this poller: after a start, a takeover or a
 * wiped store, that is every race) is overdue like any other and ranked by its score, so the races at the
 * jump are refilled first; ranked by start time instead, a new leader with 189 subscribed races spent
 * minutes on yesterday's Final races while races at the jump got nothing (issue 27). The races whose score
 * never wins (a Final race wanted only for its document) are refilled on refill turns (`isRefillTurn`): one
 * race pick in REFILL_EVERY goes to the one that has needed its document longest, a bounded share of the
 * budget. The budget itself is the limiter's: the scheduler only says what, never when.
 */
import {
  DEFAULT_SETTINGS,
  type FreshnessSettings,
  pollPolicy,
  SUBSCRIBED_MAX_INTERVAL_MS,
} from './poll-policy.js';
import type { RaceWatch } from './race-watch.js';

export type Pick =
  | { kind: 'discovery' }
  /** `urgent`: dirty, or a refill (a subscriber waits for its document); it should overtake everything queued. */
  | { kind: 'race'; raceId: string; weight: number; urgent: boolean }
  /** Nothing is due; ask again at `until` (epoch ms) or when something changes. */
  | { kind: 'idle'; until: number };

export interface SchedulerInput {
  races: Iterable<RaceWatch>;
  now: number;
  /** Races being fetched right now: never picked twice. */
  inFlight: ReadonlySet<string>;
  subscribers: ReadonlyMap<string, number>;
  /** When the next discovery request is due (epoch ms); discovery is never run twice at once. */
  discoveryDueAt: number;
  discoveryInFlight: boolean;
  /** A refill turn (isRefillTurn): the subscribed race that has needed its document longest goes first. */
  refillTurn?: boolean;
}

/** One race pick in REFILL_EVERY is a refill turn: at most this share of the races' budget refills documents. */
export const REFILL_EVERY = 5;
/** Whether the race pick after `racePicks` earlier ones is a refill turn. */
export const isRefillTurn = (racePicks: number) => racePicks % REFILL_EVERY === REFILL_EVERY - 1;

/** A race never fetched is scored as if fetched this long before discovery listed it. */
const NEVER_FETCHED_AGE_MS = 60_000;
/** Added to an overdue subscribed race's score: above any routine score, below urgent (infinite). */
const OVERDUE_SCORE = 1e15;

export function pickNext(input: SchedulerInput, settings: FreshnessSettings = DEFAULT_SETTINGS): Pick {
  const { now } = input;
  if (!input.discoveryInFlight && now >= input.discoveryDueAt) return { kind: 'discovery' };

  let best: { race: RaceWatch; score: number; weight: number; urgent: boolean } | undefined;
  let refill: { race: RaceWatch; weight: number } | undefined;
  let nextDue = input.discoveryInFlight ? Number.POSITIVE_INFINITY : input.discoveryDueAt;
  for (const race of input.races) {
    if (input.inFlight.has(race.raceId)) continue;
    const subscribers = input.subscribers.get(race.raceId) ?? 0;
    const policy = pollPolicy(race, now, subscribers, settings);
    if (!policy) continue;
    const last = race.lastFetchAt ?? race.discoveredAt - NEVER_FETCHED_AGE_MS;
    // Urgent: discovery saw a change the race's document does not show yet.
    const urgent = race.dirty && race.failures === 0;
    // Oldest-needed first: listed earliest (all at once after a takeover: then the earliest start).
    if (
      input.refillTurn &&
      subscribers > 0 &&
      race.lastFetchAt === undefined &&
      (!refill ||
        race.discoveredAt < refill.race.discoveredAt ||
        (race.discoveredAt === refill.race.discoveredAt && race.startTime < refill.race.startTime))
    )
      refill = { race, weight: policy.weight };
    // A race never fetched is due at once: its first fetch is the baseline every later change is seen against.
    const dueAt = urgent || race.lastFetchAt === undefined ? now : last + policy.minIntervalMs;
    if (dueAt > now) {
      nextDue = Math.min(nextDue, dueAt);
      continue;
    }
    // A race with nothing more to see (weight 0) is never overdue: it would go before every race at the jump
    // (the nemesis caught Final races fetched first after a wipe); refill turns give it its document.
    const overdue = subscribers > 0 && policy.weight > 0 && now - last >= SUBSCRIBED_MAX_INTERVAL_MS;
    const ageS = (now - last) / 1000;
    // Weight 0 (nothing more to see, only a baseline): below every race with something to see, oldest first.
    const value = policy.weight > 0 ? (policy.weight * ageS * ageS) / 2 : -1 / ageS;
    const score = urgent ? Number.POSITIVE_INFINITY : (overdue ? OVERDUE_SCORE : 0) + value;
    // Ties (several dirty races, say) go to the race that jumps first.
    if (!best || score > best.score || (score === best.score && race.startTime < best.race.startTime)) {
      best = { race, score, weight: policy.weight, urgent };
    }
  }
  if (refill) return { kind: 'race', raceId: refill.race.raceId, weight: refill.weight, urgent: true };
  if (best) return { kind: 'race', raceId: best.race.raceId, weight: best.weight, urgent: best.urgent };
  return { kind: 'idle', until: nextDue };
}
