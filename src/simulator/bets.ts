/**
 * Bets placed on a race, drawn once per race from its story, with the real bets' products and structures
 * (issue 22's measurement of a real Final payload: Fixed Win, Top 3, Same Race Multi, Fixed Quinella, a
 * Multi with legs on the meeting's other races, a Pool Quadrella whose selections are its legs):
 * - live bets: a stream that follows the tote's money curve (mostly in the last minutes), stakes
 *   log-normal around $40;
 * - big bets ($500 and up, Pareto tail to $50k): a background stream on the same curve, plus "money that
 *   moves the market": before most fixed-odds firms of 8 % or more in the last 30 minutes, a big win bet on
 *   that runner 5-90 s earlier, at the price it had then;
 * - runners are picked by their fixed-odds chance at the time of the bet; no bets after betting closes.
 */
import { MINUTE, placeOf, placesPaidBy } from './changes.js';
import type { Lifecycle } from './lifecycle.js';
import { LATE_WINDOW } from './market.js';
import type { RaceStatic, TimedChange } from './model.js';
import { type Rng, rngFor } from './rng.js';
import { moneyIn, TOTE_OPENS } from './tote.js';

export type BetTitle =
  | 'Fixed Win'
  | 'Top 3'
  | 'Same Race Multi'
  | 'Fixed Quinella'
  | 'Multi'
  | 'Pool Quadrella';

/** A leg of a bet over several races: the race (by number) and its selections there. */
export interface SimLeg {
  raceNumber: number;
  entrantIds: string[];
}

export interface SimBet {
  at: number;
  stake: number;
  product: BetTitle;
  /** Selections in this race, in order (one for Fixed Win, Top 3 and a Multi's leg here). */
  entrantIds: string[];
  /** Multi and Pool Quadrella: every leg in the bet's order, this race's among them; empty otherwise. */
  legs: SimLeg[];
  /** Fixed price taken (win price, place price for Top 3, the legs' product for multis), 0 on the tote. */
  odds: number;
  /** Entrant ids as the description's 16 integers instead of the real uuid strings (1 bet in 8). */
  idBytes: boolean;
  big: boolean;
}

/** A bet before its runners are picked (or with its runner and price, for a bet that moves the market). */
type Draft = Omit<SimBet, 'odds' | 'entrantIds' | 'legs' | 'idBytes'> & { entrantId?: string; odds?: number };

export const BIG_BET = 500;
/** Products, as the real titles; a Pool Quadrella only on the races of the meeting's quaddie. */
const PRODUCTS: [BetTitle, number][] = [
  ['Fixed Win', 0.45],
  ['Top 3', 0.15],
  ['Same Race Multi', 0.12],
  ['Fixed Quinella', 0.1],
  ['Multi', 0.12],
  ['Pool Quadrella', 0.06],
];
/** Selections in this race (at most: a Same Race Multi takes 2-3, a Pool Quadrella leg 1-2). */
const PICKS: Record<BetTitle, number> = {
  'Fixed Win': 1,
  'Top 3': 1,
  'Same Race Multi': 3,
  'Fixed Quinella': 2,
  Multi: 1,
  'Pool Quadrella': 2,
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
  const products = productsOf(race);
  const live = Math.round(60 * race.poolScale * rng.range(0.7, 1.3));
  for (let i = 0; i < live; i++) {
    const stake = Math.max(5, Math.round(Math.exp(Math.log(40) + rng.normal() * 1.1) / 5) * 5);
    drafts.push({
      at: moneyTime(rng, life.start, end),
      stake,
      product: weighted(rng, products),
      big: stake >= BIG_BET,
    });
  }
  const big = Math.round(6 * race.poolScale * rng.range(0.5, 1.5));
  for (let i = 0; i < big; i++)
    drafts.push({
      at: moneyTime(rng, life.start, end),
      ...bigStake(rng),
      product: weighted(rng, products),
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
        product: 'Fixed Win',
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

/** The legs of the meeting's quaddie this race is on (early quaddie or quaddie), else none. */
const quaddieOf = (race: RaceStatic) =>
  [race.meeting.earlyQuaddie, race.meeting.quaddie].find((q) => q.includes(race.raceNumber)) ?? [];

/** The race's products: a Pool Quadrella needs a quaddie leg here, a Multi another race at the meeting. */
function productsOf(race: RaceStatic): [BetTitle, number][] {
  return PRODUCTS.filter(
    ([p]) =>
      (p !== 'Pool Quadrella' || quaddieOf(race).length > 1) &&
      (p !== 'Multi' || race.meeting.races.length > 1),
  );
}

/** Runners of another race of the meeting, picked by their opening chance. */
function pickElsewhere(rng: Rng, race: RaceStatic, n: number): string[] {
  const left = race.runners.map((r): [string, number] => [r.entrantId, (1 / r.openWin) ** 0.8]);
  const picks: string[] = [];
  while (picks.length < Math.min(n, left.length)) {
    const id = weighted(
      rng,
      left.filter(([e]) => !picks.includes(e)),
    );
    picks.push(id);
  }
  return picks;
}

/**
 * The legs of a bet over several races, in the bet's order (the real Multi's legs were races 4, 5, 2, 3):
 * a Multi on this race and one to three other races of the meeting, one runner each; a Pool Quadrella on
 * the quaddie's races in order, one or two runners a leg.
 */
function legsOf(rng: Rng, race: RaceStatic, product: BetTitle, here: string[]): SimLeg[] {
  const byNumber = new Map(race.meeting.races.map((r) => [r.raceNumber, r]));
  const leg = (n: number, count: number): SimLeg =>
    n === race.raceNumber
      ? { raceNumber: n, entrantIds: here }
      : { raceNumber: n, entrantIds: pickElsewhere(rng, byNumber.get(n) as RaceStatic, count) };
  if (product === 'Pool Quadrella') return quaddieOf(race).map((n) => leg(n, rng.int(1, 2)));
  if (product !== 'Multi') return [];
  const others = rng.shuffle(
    race.meeting.races.filter((r) => r !== race && !r.abandoned).map((r) => r.raceNumber),
  );
  const numbers = rng.shuffle([race.raceNumber, ...others.slice(0, rng.int(1, 3))]);
  return numbers.map((n) => leg(n, 1));
}

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
    const wanted =
      d.product === 'Same Race Multi' || d.product === 'Pool Quadrella'
        ? rng.int(PICKS[d.product] - 1, PICKS[d.product])
        : PICKS[d.product];
    const count = Math.min(wanted, out.filter((x) => !x).length);
    while (picks.length < count) {
      const left: [number, number][] = [];
      for (let j = 0; j < price.length; j++) {
        if (!out[j] && !picks.includes(j)) left.push([j, (1 / (price[j] as number)) ** 0.8]);
      }
      picks.push(weighted(rng, left));
    }
    if (picks.length === 0) continue;
    const entrantIds = picks.map((j) => (race.runners[j] as { entrantId: string }).entrantId);
    const legs = legsOf(rng, race, d.product, entrantIds);
    const wins = picks.map((j) => price[j] as number);
    bets.push({
      at: d.at,
      stake: d.stake,
      product: d.product,
      entrantIds,
      legs,
      odds:
        Math.round(
          (d.odds ?? oddsOf(race, d.product, wins, legs, placesPaidBy(out.filter((x) => !x).length))) * 100,
        ) / 100,
      idBytes: rng.chance(1 / 8),
      big: d.big,
    });
  }
  return bets;
}

/** The fixed price a bet takes: win, place, the product of its legs' prices (other races at their opening). */
function oddsOf(
  race: RaceStatic,
  product: BetTitle,
  wins: number[],
  legs: SimLeg[],
  placesPaid: number,
): number {
  const first = wins[0] as number;
  const openOf = new Map(
    legs
      .filter((l) => l.raceNumber !== race.raceNumber)
      .flatMap((l) => race.meeting.races.find((r) => r.raceNumber === l.raceNumber)?.runners ?? [])
      .map((r) => [r.entrantId, r.openWin]),
  );
  switch (product) {
    case 'Fixed Win':
      return first;
    case 'Top 3':
      return placeOf(first, placesPaid);
    case 'Same Race Multi':
      return wins.slice(1).reduce((a, w) => a * placeOf(w, placesPaid), first);
    case 'Fixed Quinella':
      return Math.max(1.5, (first * (wins[1] ?? first)) / 2);
    case 'Multi':
      return legs.reduce((a, l) => a * (openOf.get(l.entrantIds[0] as string) ?? first), 1);
    case 'Pool Quadrella':
      return 0;
  }
}
