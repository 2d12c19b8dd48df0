/**
 * Results, protests and dividends of a finished race, derived deterministically from its placings and its
 * prices at the close. As in the real payload, the win and place dividends are the pool prices at the
 * close, and every dividend's pool_size is its pool's total.
 */
import type { ProtestKind } from './lifecycle.js';
import type { DividendRow, RaceStatic, ResultRow, RunnerState } from './model.js';
import { hashKey, rngFor } from './rng.js';
import { type PoolPrice, poolsOf, TAKE_OUT } from './tote.js';

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
  odds: ReadonlyMap<string, RunnerState>,
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

/**
 * The index in the placings whose runner dead-heats with the next one, or null: 1 % of races (not measured,
 * the real payloads have none; ~7 a simulated day), for first, second or third alike.
 */
export function deadHeatAt(seed: number, race: RaceStatic, starters: number): number | null {
  const rng = rngFor(seed, 'dead heat', race.id);
  if (!rng.chance(0.01)) return null;
  const at = rng.int(0, 2);
  return at + 1 < starters ? at : null;
}

export function resultRows(seed: number, race: RaceStatic, placings: string[]): ResultRow[] {
  const dh = deadHeatAt(seed, race, placings.length);
  const rng = rngFor(seed, 'margins', race.id, placings.join(','));
  const speed = race.meeting.category === 'G' ? 17 : race.meeting.category === 'H' ? 14 : 16.2;
  const winningTime = Math.round((race.distance / speed + rng.range(-2, 2)) * 100) / 100;
  let total = 0;
  return placings.map((entrantId, i) => {
    const m = i === 0 ? 0 : rng.int(0, MARGINS.length - 1);
    // The dead-heater shares the position above it, no margin behind it.
    const heat = dh !== null && i === dh + 1;
    total += i === 0 || heat ? 0 : (MARGIN_LENGTHS[m] as number);
    return {
      entrantId,
      position: heat ? i : i + 1,
      marginLength: Math.round(total * 10) / 10,
      positionalMargin: heat ? 'DH' : i === 0 ? '' : (MARGINS[m] as string),
      timeRan: winningTime,
    };
  });
}

const ORDINAL = ['1st', '2nd', '3rd', '4th'];

/**
 * A protest's reason while it is heard: the decided reason without its decision (`Protest 2nd (#4) vs 1st
 * (#3)`). Not measured: the real list shows decided protests only; the official description types
 * `protest_reason` as a string and says nothing of its wording.
 */
export const lodgedReason = (decided: string) => decided.replace(/ (UPHELD|DISMISSED)( -)?/, '');

/** A protest's decision: the placings at Final and the reason text, in the styles of the real day. */
export function protestOutcome(
  seed: number,
  race: RaceStatic,
  placings: string[],
  kind: ProtestKind,
): { placings: string[]; reason: string } {
  const rng = rngFor(seed, 'protest', race.id);
  const byId = new Map(race.runners.map((r) => [r.entrantId, r]));
  const num = (i: number) => byId.get(placings[i] as string)?.number ?? 0;
  const k = placings.length >= 3 && rng.chance(0.3) ? 2 : 1;
  if (placings.length < 2) return { placings, reason: 'Protest DISMISSED' };
  if (kind === 'dismissed') {
    return {
      placings,
      reason: `Protest DISMISSED - ${ORDINAL[k]} (#${num(k)}) v ${ORDINAL[k - 1]} (#${num(k - 1)})`,
    };
  }
  if (kind === 'upheld') {
    const next = [...placings];
    [next[k - 1], next[k]] = [placings[k] as string, placings[k - 1] as string];
    return {
      placings: next,
      reason: `Protest UPHELD ${ORDINAL[k]} (#${num(k)}) vs ${ORDINAL[k - 1]} (#${num(k - 1)})`,
    };
  }
  const out = rng.int(0, Math.min(2, placings.length - 2));
  const runner = byId.get(placings[out] as string);
  const why =
    race.meeting.category === 'H'
      ? 'Disqualified for breaking gait in excess of 150 metres'
      : race.meeting.category === 'G'
        ? 'Disqualified for failing to pursue'
        : 'Disqualified: weighed in light';
  return {
    placings: [...placings.slice(0, out), ...placings.slice(out + 1), placings[out] as string],
    reason: `#${runner?.number} ${runner?.name} ${why}`,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

const PRODUCT_NAMES: Record<string, string> = {
  Win: 'Pool Win',
  Place: 'Pool Place',
  Quinella: 'Pool Quinella',
  Trifecta: 'Pool Trifecta',
  FirstFour: 'Pool First4',
  RunningDouble: 'Pool Running Double',
  Double: 'Pool Double',
  Treble: 'Pool Treble',
};

/**
 * Dividend rows of one status. Win and place pay the pool prices at the close; quinella, trifecta and
 * first four pay the take over the chance of the combination (Harville, from the win-pool shares).
 * Ids are stable per (race, product, status, selection), as the real ones are.
 */
export function dividendRows(
  seed: number,
  race: RaceStatic,
  placings: string[],
  placesPaid: number,
  prices: ReadonlyMap<string, PoolPrice>,
  totals: Readonly<Record<string, number>>,
  status: 'Interim' | 'Final',
): DividendRow[] {
  const numberOf = new Map(race.runners.map((r) => [r.entrantId, r.number]));
  const top = placings.map((id) => numberOf.get(id) ?? 0);
  const price = (id: string | undefined) => prices.get(id ?? '');
  const rng = rngFor(seed, 'dividends', race.id, placings.join(','));
  const id = (product: string, sel: string) => rngFor(hashKey(seed, race.id, product, sel, status)).uuid();
  const rows: DividendRow[] = [];
  const row = (product: string, dividend: number, n: number) => {
    const sel = top.slice(0, n);
    rows.push({
      id: id(product, sel.join(':')),
      product: PRODUCT_NAMES[product] as string,
      status,
      dividend,
      poolSize: totals[product] ?? 0,
      positions: sel.map((runner_number, i) => ({ runner_number, position: i + 1 })),
    });
  };
  if (placings.length === 0) return rows;
  const dh = deadHeatAt(seed, race, placings.length);
  // A dead heat splits the pool between the two where a single runner would take it: half price each.
  const half = (p: number) => round1(Math.max(1, p / 2));
  if (dh === 0) {
    for (const i of [0, 1]) {
      const sel = top[i] as number;
      rows.push({
        id: id('Win', String(sel)),
        product: 'Pool Win',
        status,
        dividend: half(price(placings[i])?.win ?? 1),
        poolSize: totals.Win ?? 0,
        positions: [{ runner_number: sel, position: 1 }],
      });
    }
  } else row('Win', price(placings[0])?.win ?? 1, 1);
  // One place paid (4 or fewer starters) is win only: no place pool is paid.
  const places = placesPaid < 2 ? 0 : Math.min(placesPaid, placings.length);
  // A dead heat for the last place paid pays both, at half price; one inside the places pays both in full.
  const split = dh === places - 1 && places < placings.length;
  const paid = split ? places + 1 : places;
  for (let i = 0; i < paid; i++) {
    const sel = top[i] as number;
    const place = price(placings[i])?.place ?? 1;
    rows.push({
      id: id('Place', String(sel)),
      product: 'Pool Place',
      status,
      dividend: split && i >= places - 1 ? half(place) : place,
      poolSize: totals.Place ?? 0,
      positions: [{ runner_number: sel, position: 1 }],
    });
  }
  // Harville: P(i then j then ...) from the shares; quinella counts both orders.
  const chain = (ids: string[]) => {
    let p = 1;
    let left = 1;
    for (const e of ids) {
      const s = price(e)?.share ?? 0.01;
      p *= s / Math.max(0.01, left);
      left -= s;
    }
    return p;
  };
  const exotic = (product: string, n: number) => {
    if (placings.length < n) return;
    const ids = placings.slice(0, n);
    const p = n === 2 ? chain(ids) + chain([ids[1] as string, ids[0] as string]) : chain(ids);
    row(product, round1(Math.max(1, (TAKE_OUT / p) * rng.range(0.8, 1.2))), n);
  };
  exotic('Quinella', 2);
  exotic('Trifecta', 3);
  exotic('FirstFour', 4);
  const winner = { number: top[0] as number, price: price(placings[0])?.win ?? 1 };
  rows.push(...multiRaceRows(seed, race, winner, prices.size, totals, status, id));
  return rows;
}

/**
 * The doubles' and trebles' rows, on the race that is their last leg. The other legs' winners are not this
 * race's to know, so the dividend is this winner's price times a drawn price (2.5-6) per earlier leg. A
 * concession pool's description is `concession:<winner>/<starters>`: the real `concession:2/7` (issue 22's
 * 7-runner payload) is the one string known, its meaning undocumented, so only its format is copied.
 */
function multiRaceRows(
  seed: number,
  race: RaceStatic,
  winner: { number: number; price: number },
  starters: number,
  totals: Readonly<Record<string, number>>,
  status: 'Interim' | 'Final',
  id: (product: string, sel: string) => string,
): DividendRow[] {
  return poolsOf(race)
    .filter((p) => p.raceLegs?.at(-1) === race.raceNumber)
    .map((p) => {
      const rng = rngFor(seed, 'multi-race dividend', race.id, p.product, winner.number);
      let dividend = winner.price;
      for (let leg = 1; leg < (p.raceLegs?.length ?? 1); leg++) dividend *= rng.range(2.5, 6);
      return {
        id: id(p.product, String(winner.number)),
        product: PRODUCT_NAMES[p.product] as string,
        status,
        dividend: round1(dividend),
        poolSize: totals[p.product] ?? 0,
        positions: [{ runner_number: winner.number, position: 1 }],
        ...(p.template.is_concession ? { description: `concession:${winner.number}/${starters}` } : {}),
      };
    });
}
