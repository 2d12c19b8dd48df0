/**
 * Market changes: per-runner price moves and a new favourite. A fixed-odds move is one `odds.changed` per
 * runner and market (what tickers and chat alerts key on); the tote's prices move on every tote tick, for
 * every runner at once, so a payload's pool moves are one `odds.pools_changed` for the race (most of the
 * events and bytes otherwise: docs/benchmarks.md). Scratched runners keep stale fixed odds upstream, so their
 * prices are ignored. A runner whose whole odds record is missing (before or after) is treated as missing
 * data, not as every price withdrawn or opened.
 */
import type {
  DetectedRaceEvent,
  FixedMarket,
  OddsDirection,
  OddsMarket,
  PoolMarket,
  PriceChange,
  RaceContext,
} from '@racewire/client/protocol';
import type { NewEntry } from '../../events/envelope.js';
import type { DocRunner, RaceDocument } from '../track/normalise.js';
import {
  byRunnerNumber,
  DEFAULT_SIGNIFICANT_MOVE_PCT,
  finite,
  isRecord,
  runnerRef,
  runnersOf,
} from './detect-context.js';
import type { DetectOptions } from './detect-options.js';

const FIXED_MARKETS: readonly FixedMarket[] = ['fixed_win', 'fixed_place'];
const POOL_MARKETS: readonly PoolMarket[] = ['pool_win', 'pool_place'];

/** A usable price: a finite number above zero (upstream uses 0 or null for "no price"). */
const price = (odds: unknown, market: OddsMarket): number | null => {
  if (!isRecord(odds)) return null;
  const v = finite(odds[market]);
  return v !== null && v > 0 ? v : null;
};

const round1 = (n: number) => Math.round(n * 10) / 10;

/** How one runner's price in one market changed between two odds records; undefined when it did not. */
function priceChange<M extends OddsMarket>(
  a: DocRunner,
  b: DocRunner,
  market: M,
  threshold: number,
): PriceChange<M> | undefined {
  const from = price(a.odds, market);
  const to = price(b.odds, market);
  if (from === to) return undefined;
  let direction: OddsDirection;
  let changePct: number | null = null;
  if (from === null) direction = 'opened';
  else if (to === null) direction = 'withdrawn';
  else {
    direction = to < from ? 'firming' : 'drifting';
    changePct = round1(((to - from) / from) * 100);
  }
  const significant = changePct !== null && Math.abs(changePct) >= threshold;
  return { runner: runnerRef(b), market, from, to, changePct, direction, significant };
}

/** `odds.changed` per runner and fixed market (by runner number), then one `odds.pools_changed` if any. */
export function detectOddsChanges(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  opts: DetectOptions,
): DetectedRaceEvent[] {
  const threshold = opts.significantMovePct ?? DEFAULT_SIGNIFICANT_MOVE_PCT;
  const before = runnersOf(prev);
  const after = runnersOf(next);
  const out: DetectedRaceEvent[] = [];
  const pools: PriceChange<PoolMarket>[] = [];
  for (const key of byRunnerNumber(after)) {
    const a = before.get(key);
    const b = after.get(key)!;
    if (!a || b.is_scratched === true || !isRecord(a.odds) || !isRecord(b.odds)) continue;
    for (const market of FIXED_MARKETS) {
      const change = priceChange(a, b, market, threshold);
      if (change) out.push({ type: 'odds.changed', data: { race, ...change } });
    }
    for (const market of POOL_MARKETS) {
      const change = priceChange(a, b, market, threshold);
      if (change) pools.push(change);
    }
  }
  if (pools.length > 0) out.push({ type: 'odds.pools_changed', data: { race, changes: pools } });
  return out;
}

/**
 * The favourite: the one unscratched runner upstream flags `favourite`, else the one with the shortest
 * fixed win price; none when that is a tie (joint favourites) or there are no prices.
 */
export function favouriteOf(doc: RaceDocument): { key: string; runner: DocRunner } | undefined {
  const live = [...runnersOf(doc)].filter(([, r]) => r.is_scratched !== true);
  const flagged = live.filter(([, r]) => r.favourite === true);
  if (flagged.length === 1) return { key: flagged[0]![0], runner: flagged[0]![1] };
  let best: [string, DocRunner] | undefined;
  let bestPrice = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const entry of live) {
    const p = price(entry[1].odds, 'fixed_win');
    if (p === null) continue;
    if (p < bestPrice) {
      best = entry;
      bestPrice = p;
      tie = false;
    } else if (p === bestPrice) tie = true;
  }
  return best && !tie ? { key: best[0], runner: best[1] } : undefined;
}

/**
 * `race.favourite_changed` when `next`'s favourite is not `reported`, the runner key of the favourite last
 * reported (the race state's: track-race.ts), or null for none.
 */
export function detectFavouriteChange(
  reported: string | null,
  next: RaceDocument,
  race: RaceContext,
): DetectedRaceEvent[] {
  const runner = reported === null ? undefined : runnersOf(next).get(reported);
  return favouriteEvents(reported !== null && runner ? { key: reported, runner } : undefined, next, race);
}

/**
 * The runner key (in `doc`) of the favourite a stream last reported, from its entries since seq 1: the `to`
 * of its last `race.favourite_changed`, else the favourite of its first snapshot; null when that is none or
 * no longer a runner of `doc`. A tracker resuming after a restart compares against this, not against the
 * stored document's favourite, which mixes old and new prices while a price is held.
 */
export function reportedFavourite(stream: readonly NewEntry[], doc: RaceDocument): string | null {
  const first = stream[0];
  let entrantId =
    first?.kind === 'snapshot' ? favouriteOf(first.document as RaceDocument)?.runner.entrant_id : undefined;
  for (const entry of stream) {
    if (entry.kind === 'event' && entry.event.type === 'race.favourite_changed') {
      entrantId = (entry.event.data as { to: { entrantId: string } }).to.entrantId;
    }
  }
  for (const [key, runner] of runnersOf(doc)) if (runner.entrant_id === entrantId) return key;
  return null;
}

/** `race.favourite_changed` when `next`'s favourite is not `from` (none when `next` has no favourite). */
function favouriteEvents(
  from: { key: string; runner: DocRunner } | undefined,
  next: RaceDocument,
  race: RaceContext,
): DetectedRaceEvent[] {
  const b = favouriteOf(next);
  if (!b || from?.key === b.key) return [];
  return [
    {
      type: 'race.favourite_changed',
      data: {
        race,
        from: from ? runnerRef(from.runner) : null,
        to: runnerRef(b.runner),
        price: price(b.runner.odds, 'fixed_win'),
      },
    },
  ];
}
