/**
 * Typed events from two successive documents of one race. Pure: time comes in through `opts`.
 * Order is stable: race-level changes, then runners (by runner number), prices, favourite, results,
 * dividends, then market events. The tracker never calls this on a first observation (that is a snapshot
 * with no events).
 */
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import { raceContext } from './detect-context.js';
import { detectMarketEvents } from './detect-market.js';
import { detectFavouriteChange, detectOddsChanges } from './detect-odds.js';
import type { DetectOptions } from './detect-options.js';
import { detectRaceChanges } from './detect-race.js';
import { detectDividendChanges, detectResultChanges } from './detect-results.js';
import { detectRunnerChanges } from './detect-runners.js';
import type { RaceDocument } from './normalise.js';

export type { DetectOptions } from './detect-options.js';

export function detectEvents(
  prev: RaceDocument,
  next: RaceDocument,
  opts: DetectOptions = {},
): DetectedRaceEvent[] {
  const race = raceContext(next);
  return [
    ...detectRaceChanges(prev, next, race),
    ...detectRunnerChanges(prev, next, race, opts),
    ...detectOddsChanges(prev, next, race, opts),
    ...detectFavouriteChange(prev, next, race),
    ...detectResultChanges(prev, next, race),
    ...detectDividendChanges(prev, next, race),
    ...detectMarketEvents(prev, next, race, { ...opts.market, observedAt: opts.observedAt }),
  ];
}
