/** Market data on the real Awapuni R1 payload: bets in the official Bet shape, flucs, and a step helper. */
import { type DetectedRaceEvent, MARKET_EVENT_TYPES } from '@racewire/client/protocol';
import type { EventResponse } from '../../src/upstream/schemas.js';
import {
  DEFAULT_MARKET_THRESHOLDS,
  type MarketThresholds,
} from '../../src/watch/detect/market-thresholds.js';
import { type RaceState, trackRace } from '../../src/watch/track/track-race.js';
import { type Loose, openPayload, realPayload, runner } from './support.js';

const uuidBytes = (id: string) =>
  (id.replace(/-/g, '').match(/../g) ?? []).map((h) => Number.parseInt(h, 16));

/**
 * A bet as the official description shapes it (title, description, stake, legs with selections,
 * place_time, place_odds) on runners of the real race, picked by runner number.
 */
export function bet(title: string, stake: number, placeTime: string, numbers: number[], odds = 0): Loose {
  const runners = realPayload().data.runners as Loose[];
  const picks = numbers.map((n) => runners.find((r) => r.runner_number === n));
  const single = picks.length === 1 ? picks[0] : undefined;
  return {
    title,
    description: picks.map((r) => `${r.name} (${r.barrier})`),
    stake,
    legs: [
      {
        race: {
          meeting_name: 'Awapuni Synthetic',
          race_name: 'PRYDA HANDICAP 1700',
          race_number: 1,
          product_type_name: title,
          ...(single
            ? {
                entrant_id: uuidBytes(single.entrant_id),
                entrant_name: single.name,
                entrant_number: single.runner_number,
                barrier_number: single.barrier,
              }
            : {}),
        },
        selections: picks.map((r, i) => ({
          position: i + 1,
          entrants: [
            {
              entrant_id: uuidBytes(r.entrant_id),
              entrant_name: r.name,
              entrant_number: r.runner_number,
              entrant_barrier: r.barrier,
            },
          ],
        })),
      },
    ],
    place_time: placeTime,
    place_odds: odds,
  };
}

/** The open real race with runner `n`'s timestamped flucs (and fixed win price) set to `flucs`. */
export function withFlucs(
  base: EventResponse,
  n: number,
  flucs: [timestamp: string, price: number][],
): EventResponse {
  const copy = structuredClone(base);
  const r = runner(copy.data as Loose, n);
  const points = flucs.map(([timestamp, fluc]) => ({ timestamp, fluc }));
  r.flucs = flucs.map(([, p]) => p);
  r.flucs_with_timestamp = { ...r.flucs_with_timestamp, last_six: points.slice(-6) };
  r.odds.fixed_win = flucs.at(-1)?.[1];
  return copy;
}

/** Runs payloads through trackRace (one memory for the race) and returns each step's market events. */
export function marketSteps(
  steps: { payload: EventResponse; at?: number }[],
  thresholds: MarketThresholds = DEFAULT_MARKET_THRESHOLDS,
): DetectedRaceEvent[][] {
  let state: RaceState | undefined;
  return steps.map(({ payload, at }) => {
    const result = trackRace(state, payload, at ?? Number.NaN, { market: { thresholds } });
    state = result.state;
    return result.entries.flatMap((e) =>
      e.kind === 'event' && MARKET_TYPES.has(e.event.type)
        ? [{ type: e.event.type, data: e.event.data } as DetectedRaceEvent]
        : [],
    );
  });
}

const MARKET_TYPES: ReadonlySet<string> = new Set(MARKET_EVENT_TYPES);

const KEPT = [
  'entrant_id',
  'name',
  'runner_number',
  'barrier',
  'is_scratched',
  'scratch_time',
  'odds',
  'favourite',
  'mover',
  'flucs',
  'flucs_with_timestamp',
];

/**
 * The open real race with each runner cut to the members the market detectors read (real values), the
 * favourite and mover records likewise, and no tote trends: a twentieth of the size, for property tests
 * that run thousands of steps.
 */
export function slimPayload(): EventResponse {
  const copy = openPayload();
  const d = copy.data as Loose;
  const cut = (r: Loose) => Object.fromEntries(KEPT.filter((k) => k in r).map((k) => [k, r[k]]));
  d.runners = d.runners.map(cut);
  d.favourite = cut(d.favourite);
  d.mover = cut(d.mover);
  d.tote_pools = d.tote_pools.map(({ tote_trends: _, ...p }: Loose) => p);
  return copy;
}

export { openPayload };
