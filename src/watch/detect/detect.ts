/**
 * Typed events from two successive documents of one race. Pure: time comes in through `opts`, and what
 * detection remembers between payloads (the favourite last reported, the money memory) comes in and goes out
 * as a value, part of the race state (track-race.ts). Order is stable: race-level changes, then runners (by
 * runner number), prices, favourite, results, dividends, then market events. The tracker never calls this on
 * a first observation (that is a snapshot with no events).
 */
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import type { RaceDocument } from '../track/normalise.js';
import { raceContext } from './detect-context.js';
import { detectMarketEvents } from './detect-market.js';
import { detectFavouriteChange, detectOddsChanges, favouriteOf } from './detect-odds.js';
import type { DetectOptions } from './detect-options.js';
import { detectRaceChanges } from './detect-race.js';
import { detectDividendChanges, detectResultChanges } from './detect-results.js';
import { detectRunnerChanges } from './detect-runners.js';
import type { MoneyMemory } from './money-flow.js';

export type { DetectOptions } from './detect-options.js';

/** What detection carries from one payload of a race to the next. */
export interface DetectMemory {
  /**
   * The favourite last reported (a runner key; null: none), which `race.favourite_changed` is judged
   * against; undefined judges none (while a runner's claim is held, the document mixes old and new prices).
   */
  favourite: string | null | undefined;
  /** The race's money memory; without one, no `market.money_flow`. */
  money?: MoneyMemory;
}

export function detectEvents(
  prev: RaceDocument,
  next: RaceDocument,
  opts: DetectOptions = {},
  memory: DetectMemory = { favourite: favouriteOf(prev)?.key ?? null },
): { events: DetectedRaceEvent[]; money?: MoneyMemory } {
  const race = raceContext(next);
  const market = detectMarketEvents(
    prev,
    next,
    race,
    { ...opts.market, observedAt: opts.observedAt },
    memory.money,
  );
  const events = [
    ...detectRaceChanges(prev, next, race),
    ...detectRunnerChanges(prev, next, race, opts),
    ...detectOddsChanges(prev, next, race, opts),
    ...(memory.favourite === undefined ? [] : detectFavouriteChange(memory.favourite, next, race)),
    ...detectResultChanges(prev, next, race),
    ...detectDividendChanges(prev, next, race),
    ...market.events,
  ];
  return { events, money: market.money };
}
