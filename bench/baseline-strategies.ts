/**
 * The baselines the freshness benchmark compares racewire's scheduler with, as drop-in strategies for the
 * poller. Each discovers on its own interval (they must learn the races somehow) and none uses discovery to
 * trigger fetches.
 */
import type { SimWorld } from '../src/simulator/index.js';
import type { Pick, SchedulerInput } from '../src/watch/schedule/scheduler.js';
import { FINISHED_STATUSES, type RaceWatch } from '../src/watch/track/race-watch.js';

const MINUTE = 60_000;
/** The scraper starts this long before a race's advertised start. */
const SCRAPE_FROM = 15 * MINUTE;

function discoveryFirst(input: SchedulerInput): Pick | undefined {
  if (!input.discoveryInFlight && input.now >= input.discoveryDueAt) return { kind: 'discovery' };
  return undefined;
}

/**
 * The common scraper: each race every `intervalMs` from 15 minutes before its advertised start until it is
 * Final; when more are due than the budget allows, the stalest first.
 */
export function scraper(intervalMs: number): (input: SchedulerInput) => Pick {
  return (input) => {
    const first = discoveryFirst(input);
    if (first) return first;
    let best: RaceWatch | undefined;
    let nextDue = input.discoveryDueAt;
    for (const race of input.races) {
      if (input.inFlight.has(race.raceId) || FINISHED_STATUSES.has(race.status)) continue;
      if (input.now < race.startTime - SCRAPE_FROM) {
        nextDue = Math.min(nextDue, race.startTime - SCRAPE_FROM);
        continue;
      }
      const due = (race.lastFetchAt ?? Number.NEGATIVE_INFINITY) + intervalMs;
      if (due > input.now) {
        nextDue = Math.min(nextDue, due);
        continue;
      }
      if (!best || (race.lastFetchAt ?? 0) < (best.lastFetchAt ?? 0)) best = race;
    }
    if (best) return { kind: 'race', raceId: best.raceId, weight: 1, urgent: false };
    return { kind: 'idle', until: nextDue };
  };
}

/**
 * The scraper's interval that spends the whole budget over [from, to): the race-time it has to cover (every
 * race from 15 minutes before its advertised start to Final, clipped to the window) divided by the requests
 * the budget leaves after its discovery (`discoveryPerMinute`).
 */
export function budgetMatchedInterval(
  world: SimWorld,
  from: number,
  to: number,
  rpm: number,
  discoveryPerMinute: number,
): number {
  let covered = 0;
  for (const meeting of world.meetingsDated(from - 24 * 60 * MINUTE, to + 24 * 60 * MINUTE, from)) {
    for (const race of meeting.races) {
      const life = world.lifecycle(race.id);
      const end = life.abandonAt ?? life.finalAt;
      covered += Math.max(0, Math.min(to, end) - Math.max(from, race.advertisedStart - SCRAPE_FROM));
    }
  }
  const requests = ((rpm - discoveryPerMinute) * (to - from)) / MINUTE;
  return Math.round(covered / requests);
}
