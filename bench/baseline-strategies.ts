/**
 * The two baselines the freshness benchmark compares racewire's scheduler with, as drop-in strategies for the
 * poller. Both discover every 60 s (they must learn the races somehow) and neither uses discovery to trigger
 * fetches.
 */
import { FINISHED_STATUSES, type RaceWatch } from '../src/watch/race-watch.js';
import type { Pick, SchedulerInput } from '../src/watch/scheduler.js';

const MINUTE = 60_000;

function discoveryFirst(input: SchedulerInput): Pick | undefined {
  if (!input.discoveryInFlight && input.now >= input.discoveryDueAt) return { kind: 'discovery' };
  return undefined;
}

/** Naive round-robin: every race that is not Final or Abandoned, in turn, as fast as the budget allows. */
export function roundRobin(input: SchedulerInput): Pick {
  const first = discoveryFirst(input);
  if (first) return first;
  let oldest: RaceWatch | undefined;
  for (const race of input.races) {
    if (input.inFlight.has(race.raceId) || FINISHED_STATUSES.has(race.status)) continue;
    if (!oldest || (race.lastFetchAt ?? 0) < (oldest.lastFetchAt ?? 0)) oldest = race;
  }
  if (oldest) return { kind: 'race', raceId: oldest.raceId, weight: 1, urgent: false };
  return { kind: 'idle', until: input.discoveryDueAt };
}

/** The common scraper: each race every 60 s from 15 minutes before its advertised start until it is Final. */
export function scraper(input: SchedulerInput): Pick {
  const first = discoveryFirst(input);
  if (first) return first;
  let best: RaceWatch | undefined;
  let nextDue = input.discoveryDueAt;
  for (const race of input.races) {
    if (input.inFlight.has(race.raceId) || FINISHED_STATUSES.has(race.status)) continue;
    if (input.now < race.startTime - 15 * MINUTE) {
      nextDue = Math.min(nextDue, race.startTime - 15 * MINUTE);
      continue;
    }
    const due = (race.lastFetchAt ?? Number.NEGATIVE_INFINITY) + MINUTE;
    if (due > input.now) {
      nextDue = Math.min(nextDue, due);
      continue;
    }
    if (!best || (race.lastFetchAt ?? 0) < (best.lastFetchAt ?? 0)) best = race;
  }
  if (best) return { kind: 'race', raceId: best.raceId, weight: 1, urgent: false };
  return { kind: 'idle', until: nextDue };
}
