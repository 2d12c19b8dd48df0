/** Results and dividends of a finished race, derived deterministically from its placings and prices. */
import type { DividendRow, RaceStatic, ResultRow, RunnerState } from './model.js';
import { hashKey, rngFor } from './rng.js';

const MARGINS = [
  'NSE',
  'SHT HD',
  'HD',
  'SHT1/2HD',
  '1/2 HD',
  'NK',
  'LG NK',
  '1/2L',
  '3/4L',
  '1L',
  '1-1/4L',
  '2L',
  '3L',
];
const MARGIN_LENGTHS = [0.02, 0.1, 0.2, 0.25, 0.3, 0.3, 0.4, 0.5, 0.75, 1, 1.25, 2, 3];

/** Orders the runners still in the race by a draw weighted with their win prices (favourites win more). */
export function drawPlacings(
  seed: number,
  race: RaceStatic,
  odds: Map<string, RunnerState>,
  salt: string,
): string[] {
  const rng = rngFor(seed, 'placings', race.id, salt);
  const live = race.runners.filter((r) => odds.get(r.entrantId)?.scratchedAt == null);
  const keyed = live.map((r) => {
    const price = odds.get(r.entrantId)?.fixedWin ?? r.openWin;
    // Exponential race with rate 1/price: P(first) is proportional to 1/price.
    return { id: r.entrantId, t: -Math.log(1 - rng.next()) * price };
  });
  return keyed.sort((a, b) => a.t - b.t).map((k) => k.id);
}

export function resultRows(seed: number, race: RaceStatic, placings: string[]): ResultRow[] {
  const rng = rngFor(seed, 'margins', race.id, placings.join(','));
  const speed = race.meeting.category === 'G' ? 17 : race.meeting.category === 'H' ? 14 : 16.2;
  const winningTime = Math.round((race.distance / speed + rng.range(-2, 2)) * 100) / 100;
  let total = 0;
  return placings.map((entrantId, i) => {
    const m = i === 0 ? 0 : rng.int(0, MARGINS.length - 1);
    total += i === 0 ? 0 : (MARGIN_LENGTHS[m] as number);
    return {
      entrantId,
      position: i + 1,
      marginLength: Math.round(total * 10) / 10,
      positionalMargin: i === 0 ? '' : (MARGINS[m] as string),
      timeRan: winningTime,
    };
  });
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Dividend rows of one status; ids are stable per (race, product, status, selection), as the real ones are. */
export function dividendRows(
  seed: number,
  race: RaceStatic,
  placings: string[],
  odds: Map<string, RunnerState>,
  status: 'Interim' | 'Final',
): DividendRow[] {
  const numberOf = new Map(race.runners.map((r) => [r.entrantId, r.number]));
  const top = placings.map((id) => numberOf.get(id) ?? 0);
  const price = (id: string | undefined) => (id ? (odds.get(id)?.poolWin ?? 5) : 5);
  const rng = rngFor(seed, 'dividends', race.id, placings.join(','));
  const pool = (p: number) => Math.round(race.poolScale * p * 100) / 100;
  const id = (product: string, sel: string) => {
    const r = rngFor(hashKey(seed, race.id, product, sel, status));
    return r.uuid();
  };
  const rows: DividendRow[] = [];
  const first = placings[0];
  if (first !== undefined) {
    rows.push({
      id: id('Win', top.slice(0, 1).join()),
      product: 'Pool Win',
      status,
      dividend: Math.max(1.1, round1(price(first))),
      poolSize: pool(9000),
      positions: [{ runner_number: top[0] as number, position: 1 }],
    });
  }
  const paid = Math.min(race.positionsPaid, placings.length);
  for (let i = 0; i < paid; i++) {
    rows.push({
      id: id('Place', String(top[i])),
      product: 'Pool Place',
      status,
      dividend: Math.max(1.05, round1(1 + (price(placings[i]) - 1) / 3.5)),
      poolSize: pool(4000),
      positions: [{ runner_number: top[i] as number, position: 1 }],
    });
  }
  const exotic = (product: string, n: number, mult: number, size: number) => {
    if (placings.length < n) return;
    const sel = top.slice(0, n);
    const base = placings.slice(0, n).reduce((acc, e) => acc * Math.max(1.5, price(e)), 1);
    rows.push({
      id: id(product, sel.join(':')),
      product,
      status,
      dividend: round1(base * mult * rng.range(0.8, 1.2)),
      poolSize: pool(size),
      positions: sel.map((runner_number, i) => ({ runner_number, position: i + 1 })),
    });
  };
  exotic('Pool Quinella', 2, 0.45, 5300);
  exotic('Pool Trifecta', 3, 0.6, 8000);
  exotic('Pool First4', 4, 0.7, 4600);
  return rows;
}
