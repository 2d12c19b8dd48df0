/**
 * Bets placed on a race, drawn once per race from its story. The real payloads have no bets (the options
 * were off), so this is a model, shaped by the description's Bet record:
 * - live bets: a stream that follows the tote's money curve (mostly in the last minutes), stakes
 *   log-normal around $40;
 * - big bets ($500 and up, Pareto tail to $50k): a background stream on the same curve, plus "money that
 *   moves the market": before most fixed-odds firms of 8 % or more in the last 30 minutes, a big win bet on
 *   that runner 5-90 s earlier, at the price it had then;
 * - runners are picked by their fixed-odds chance at the time of the bet; no bets after betting closes.
 */
import { MINUTE, placeOf } from './changes.js';
import type { Lifecycle } from './lifecycle.js';
import { LATE_WINDOW } from './market.js';
import type { RaceStatic, TimedChange } from './model.js';
import { type Rng, rngFor } from './rng.js';
import { moneyIn, TOTE_OPENS } from './tote.js';

export interface SimBet {
  at: number;
  stake: number;
  product: 'Win' | 'Place' | 'Each Way' | 'Quinella' | 'Trifecta' | 'First Four';
  /** Selections in finishing order (one for win, place and each way). */
  entrantIds: string[];
  /** Fixed price taken (win price for win and each way, place price for place), 0 for tote exotics. */
  odds: number;
  big: boolean;
}

/** A bet before its runners are picked (or with its runner and price, for a bet that moves the market). */
type Draft = Omit<SimBet, 'odds' | 'entrantIds'> & { entrantId?: string; odds?: number };

export const BIG_BET = 500;
const PRODUCTS: [SimBet['product'], number][] = [
  ['Win', 0.5],
  ['Each Way', 0.15],
  ['Place', 0.15],
  ['Quinella', 0.08],
  ['Trifecta', 0.07],
  ['First Four', 0.05],
];
const LEGS: Record<SimBet['product'], number> = {
  Win: 1,
  Place: 1,
  'Each Way': 1,
  Quinella: 2,
  Trifecta: 3,
  'First Four': 4,
};

function weighted<T>(rng: Rng, items: [T, number][]): T {
  let x = rng.next() * items.reduce((a, [, w]) => a + w, 0);
  for (const [item, w] of items) {
    x -= w;
    if (x <= 0) return item;
  }
  return (items.at(-1) as [T, number])[0];
}

/** A time drawn from the money curve between the tote's open and the close (inverse of moneyIn). */
function moneyTime(rng: Rng, start: number, end: number): number {
  const lo = moneyIn(start - TOTE_OPENS, start);
  const hi = moneyIn(end, start);
  const f = lo + rng.next() * (hi - lo);
  const minutesOut = 4 * (1 / f - 1) ** (1 / 1.4) - 3;
  return Math.min(end - 1, Math.round(start - minutesOut * MINUTE));
}

export function betsOf(
  seed: number,
  race: RaceStatic,
  life: Lifecycle,
  story: readonly TimedChange[],
): SimBet[] {
  const end = Math.min(life.closeAt, life.abandonAt ?? Number.POSITIVE_INFINITY);
  if (!Number.isFinite(end)) return [];
  const rng = rngFor(seed, 'bets', race.id);
  const drafts: Draft[] = [];
  const live = Math.round(60 * race.poolScale * rng.range(0.7, 1.3));
  for (let i = 0; i < live; i++) {
    const stake = Math.max(5, Math.round(Math.exp(Math.log(40) + rng.normal() * 1.1) / 5) * 5);
    drafts.push({
      at: moneyTime(rng, life.start, end),
      stake,
      product: weighted(rng, PRODUCTS),
      big: stake >= BIG_BET,
    });
  }
  const big = Math.round(6 * race.poolScale * rng.range(0.5, 1.5));
  for (let i = 0; i < big; i++)
    drafts.push({
      at: moneyTime(rng, life.start, end),
      ...bigStake(rng),
      product: weighted(rng, PRODUCTS),
      big: true,
    });
  // Money that moves the market: a big win bet before a firm of 8 % or more late in the market.
  const last = new Map<string, number>();
  const openWin = new Map(race.runners.map((r) => [r.entrantId, r.openWin]));
  for (const c of story) {
    if (c.type !== 'odds') continue;
    const id = c.detail.entrantId as string;
    const price = c.detail.fixedWin as number;
    const before = last.get(id) ?? openWin.get(id) ?? price;
    last.set(id, price);
    if (c.at >= life.start - LATE_WINDOW && c.at < end && price <= before * 0.92 && rng.chance(0.7)) {
      drafts.push({
        at: c.at - rng.int(5, 90) * 1000,
        ...bigStake(rng),
        product: 'Win',
        big: true,
        entrantId: id,
        odds: before,
      });
    }
  }
  drafts.sort((a, b) => a.at - b.at);
  return priceAndPick(rng, race, story, drafts);
}

const bigStake = (rng: Rng) => ({
  stake: Math.min(50_000, Math.round(BIG_BET / (1 - rng.next()) ** (1 / 1.6) / 50) * 50),
});

/** Picks runners by their chance at the time of each bet and records the price taken. */
function priceAndPick(rng: Rng, race: RaceStatic, story: readonly TimedChange[], drafts: Draft[]): SimBet[] {
  const index = new Map(race.runners.map((r, i) => [r.entrantId, i]));
  const price = race.runners.map((r) => r.openWin);
  const out = race.runners.map(() => false);
  let i = 0;
  const bets: SimBet[] = [];
  for (const d of drafts) {
    for (; i < story.length && (story[i] as TimedChange).at <= d.at; i++) {
      const c = story[i] as TimedChange;
      const j = index.get(c.detail.entrantId as string);
      if (j === undefined) continue;
      if (c.type === 'odds') price[j] = c.detail.fixedWin as number;
      if (c.type === 'scratching') out[j] = true;
    }
    const given = d.entrantId === undefined ? undefined : index.get(d.entrantId);
    if (given !== undefined && out[given]) continue;
    const picks: number[] = given === undefined ? [] : [given];
    const legs = Math.min(LEGS[d.product], out.filter((x) => !x).length);
    while (picks.length < legs) {
      const left: [number, number][] = [];
      for (let j = 0; j < price.length; j++) {
        if (!out[j] && !picks.includes(j)) left.push([j, (1 / (price[j] as number)) ** 0.8]);
      }
      picks.push(weighted(rng, left));
    }
    if (picks.length === 0) continue;
    const win = price[picks[0] as number] as number;
    const odds =
      d.odds ??
      (d.product === 'Win' || d.product === 'Each Way'
        ? win
        : d.product === 'Place'
          ? placeOf(win, race.positionsPaid)
          : 0);
    bets.push({
      at: d.at,
      stake: d.stake,
      product: d.product,
      entrantIds: picks.map((j) => (race.runners[j] as { entrantId: string }).entrantId),
      odds: Math.round(odds * 100) / 100,
      big: d.big,
    });
  }
  return bets;
}
