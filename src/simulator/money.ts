/**
 * The money tracker, shaped like the real one: `entrants` rows of {entrant_id, hold_percentage,
 * bet_percentage}, integers. The real payload has 76 rows for 8 runners: 8-10 rows per runner plus 3 rows
 * of entrants not in the field, and over all rows each percentage sums to ~100 (101 there, by rounding).
 * So a row is one market's slice of the race's whole book (fixed win, fixed place, tote win, ...) and an
 * entrant repeats once per market it has money in; the foreign entrants are runners of other markets on
 * the race. Rows keep their order (a stable shuffle per race) and their values move on the tote's ticks:
 * the money follows the fixed-odds chances, each row leaning its own way while the pools are thin, and moves
 * smoothly from tick to tick as a cumulative tracker does.
 */
import type { RaceState, RaceStatic } from './model.js';
import { outsidersOf } from './outsiders.js';
import { rngFor } from './rng.js';
import { moneyIn, toteTick } from './tote.js';

/** Markets a runner can have money in, with their share of the race's money. */
const MARKETS: [string, number][] = [
  ['fixed win', 0.5],
  ['fixed place', 0.2],
  ['tote win', 0.1],
  ['each way', 0.07],
  ['tote place', 0.05],
  ['multi', 0.03],
  ['trifecta', 0.02],
  ['quinella', 0.015],
  ['first four', 0.01],
  ['same race multi', 0.005],
];

interface Row {
  entrantId: string;
  weight: number;
  /** Index of the field's runner, or -1 for an entrant of another market. */
  runner: number;
}

/** Spread of what is new in the tracker from one tote tick to the next (lognormal sigma). */
const TICK_NOISE = 0.05;

const rowCache = new Map<string, Row[]>();

/** The race's rows in their stable order: each runner in most markets, and the race's 3-5 outsiders. */
function rowsOf(seed: number, race: RaceStatic): Row[] {
  const key = `${seed}|${race.id}`;
  let rows = rowCache.get(key);
  if (rows) return rows;
  const rng = rngFor(seed, 'money-rows', race.id);
  rows = [];
  race.runners.forEach((r, runner) => {
    for (const [, weight] of MARKETS)
      if (rng.chance(0.92)) rows?.push({ entrantId: r.entrantId, weight, runner });
  });
  for (const o of outsidersOf(seed, race))
    rows.push({ entrantId: o.entrantId, weight: rng.range(0, 0.15), runner: -1 });
  rng.shuffle(rows);
  rowCache.set(key, rows);
  if (rowCache.size > 500) rowCache.delete(rowCache.keys().next().value as string);
  return rows;
}

/** Rounds shares to integer percentages. */
const percent = (shares: number[]) => {
  const total = shares.reduce((a, b) => a + b, 0);
  return shares.map((s) => (total > 0 ? Math.round((100 * s) / total) : 0));
};

export function moneyTracker(seed: number, race: RaceStatic, state: RaceState, t: number) {
  const rows = rowsOf(seed, race);
  const tick = toteTick(t, state.startTime, state.closedAt);
  if (tick === null) {
    return {
      entrants: rows.map((r) => ({ entrant_id: r.entrantId, hold_percentage: 0, bet_percentage: 0 })),
    };
  }
  // The tracker is cumulative: money placed stays, so a row's lean (its persistent draw) fades as the pools
  // fill rather than being redrawn on every tick; only a little noise is new at each tick.
  const lean = rngFor(seed, 'money-lean', race.id);
  const rng = rngFor(seed, 'money', race.id, tick);
  const sigma = 0.3 + 0.8 * (1 - moneyIn(tick, state.startTime));
  const noise = () => lean.normal() * sigma + rng.normal() * TICK_NOISE;
  const chance = race.runners.map((r) => {
    const s = state.runners.get(r.entrantId);
    return !s || s.scratchedAt !== null ? 0 : 1 / s.fixedWin;
  });
  const hold: number[] = [];
  const bets: number[] = [];
  for (const row of rows) {
    const c = row.runner < 0 ? 0.02 : (chance[row.runner] as number);
    hold.push(row.weight * c ** 1.2 * Math.exp(noise()));
    bets.push(row.weight * c ** 0.8 * Math.exp(noise()));
  }
  const holdPct = percent(hold);
  const betPct = percent(bets);
  return {
    entrants: rows.map((r, i) => ({
      entrant_id: r.entrantId,
      hold_percentage: holdPct[i] as number,
      bet_percentage: betPct[i] as number,
    })),
  };
}
