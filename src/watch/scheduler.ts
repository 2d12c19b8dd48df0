/**
 * Which request to make next: a pure function of the known races, the clock, the subscriptions and what is
 * already in flight. The poller asks it whenever the limiter has a slot.
 *
 * Rule: among races whose minimum interval has passed, take the one with the largest weighted staleness
 * (time since its last fetch x its weight). When demand exceeds the budget this gives each race a share of
 * the requests proportional to its weight, so intervals stretch by priority; when it does not, minimum
 * intervals keep the spare budget unspent. A race discovery marked dirty, or a subscribed race with no
 * document yet, goes first; discovery itself goes first of all when it is due. A subscribed race not fetched
 * for SUBSCRIBED_MAX_INTERVAL_MS comes next, before every routine pick: someone is watching it, and under a
 * saturated budget weights alone would leave a race an hour out unfetched for minutes.
 */
import { pollPolicy, SUBSCRIBED_MAX_INTERVAL_MS } from './poll-policy.js';
import type { RaceWatch } from './race-watch.js';

export type Pick =
  | { kind: 'discovery' }
  /** `urgent`: dirty, or subscribed with no document yet; it should overtake everything queued. */
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
}

/** Weighted staleness given to a race never fetched: as if fetched this long before discovery. */
const NEVER_FETCHED_AGE_MS = 60_000;
/** Added to an overdue subscribed race's score: above any routine score, below urgent (infinite). */
const OVERDUE_SCORE = 1e15;

export function pickNext(input: SchedulerInput): Pick {
  const { now } = input;
  if (!input.discoveryInFlight && now >= input.discoveryDueAt) return { kind: 'discovery' };

  let best: { race: RaceWatch; score: number; weight: number; urgent: boolean } | undefined;
  let nextDue = input.discoveryInFlight ? Number.POSITIVE_INFINITY : input.discoveryDueAt;
  for (const race of input.races) {
    if (input.inFlight.has(race.raceId)) continue;
    const subscribers = input.subscribers.get(race.raceId) ?? 0;
    const policy = pollPolicy(race, now, subscribers);
    if (!policy) continue;
    const last = race.lastFetchAt ?? race.discoveredAt - NEVER_FETCHED_AGE_MS;
    // Urgent: discovery saw a change, or someone subscribed to a race racewire has no document of yet.
    const urgent = (race.dirty || (subscribers > 0 && race.lastFetchAt === undefined)) && race.failures === 0;
    const dueAt = urgent ? now : last + policy.minIntervalMs;
    if (dueAt > now) {
      nextDue = Math.min(nextDue, dueAt);
      continue;
    }
    const overdue = subscribers > 0 && now - last >= SUBSCRIBED_MAX_INTERVAL_MS;
    const score = urgent
      ? Number.POSITIVE_INFINITY
      : (overdue ? OVERDUE_SCORE : 0) + (now - last) * policy.weight;
    // Ties (several dirty races, say) go to the race that jumps first.
    if (!best || score > best.score || (score === best.score && race.startTime < best.race.startTime)) {
      best = { race, score, weight: policy.weight, urgent };
    }
  }
  if (best) return { kind: 'race', raceId: best.race.raceId, weight: best.weight, urgent: best.urgent };
  return { kind: 'idle', until: nextDue };
}
