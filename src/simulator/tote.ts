/**
 * The tote, as a function of time: pools take money from 6 h before the advertised start, mostly in the
 * last minutes, and publish on ticks (every 5 min, every minute from 60 min out, every 15 s from 10 min
 * out, and once more when betting closes). Pool prices are the tote's approximate dividends: the money on
 * each runner is its fixed-odds chance with noise that shrinks as the pool fills, and pays out the pool
 * after the take. Measured in the real payload: the win-pool book (sum of 1 / pool_win) is 1.195, and the
 * dividends equal the pool prices and pool totals at the close. Nothing here is journalled: the state at a
 * tick is computed, not stored.
 */
import { FIXED_PLACE_DIVISOR, HOUR, MINUTE, placesPaidBy } from './changes.js';
import { templates } from './data.js';
import type { RaceState, RaceStatic, RunnerState } from './model.js';
import { rngFor } from './rng.js';

/** Share of a win pool paid back: 1 / 0.84 = 1.19, the real pool book. */
export const TAKE_OUT = 0.84;
/** Pool place price = 1 + (pool win - 1) / this with three places paid: fitted to the real pool-place book. */
const POOL_PLACE_DIVISOR_THREE = 6;
export const TOTE_OPENS = 6 * HOUR;

/** The last tick at or before `t` (epoch ms), or null before the tote opens. Frozen at the close. */
export function toteTick(t: number, startTime: number, closedAt: number | null): number | null {
  const at = closedAt !== null && t >= closedAt ? closedAt : t;
  const open = startTime - TOTE_OPENS;
  if (at < open) return null;
  if (at === closedAt) return at;
  const step = (from: number, ms: number) => from + Math.floor((at - from) / ms) * ms;
  if (at < startTime - HOUR) return step(open, 5 * MINUTE);
  if (at < startTime - 10 * MINUTE) return step(startTime - HOUR, MINUTE);
  return step(startTime - 10 * MINUTE, 15_000);
}

/** Share of a pool's money in by `tick`: half of it in the last ~4 min before the advertised start. */
export function moneyIn(tick: number, startTime: number): number {
  const minutesOut = Math.max(0, (startTime - tick) / MINUTE + 3);
  return 1 / (1 + (minutesOut / 4) ** 1.4);
}

export interface PoolPlan {
  product: string;
  template: Record<string, unknown>;
  /** Total the pool would reach at the advertised start + 3 min. */
  full: number;
  /** The quaddie's legs (race numbers): its will-pays, jackpot and trends. */
  legs?: number[];
  /** A double's or treble's legs (race numbers): its dividend is paid on the last. */
  raceLegs?: number[];
}

/**
 * The multi-race pools of issue 22's real set (not in the shipped capture; see docs/simulator.md): the
 * running double on each of the meeting's `tote_running_double` pairs, the treble on each `tote_treble`
 * triple, and a concession Double on the meeting's last pair. Totals are shares of the win pool; the last
 * treble and the Double carry a guarantee.
 */
const MULTI_RACE = [
  { product: 'RunningDouble', member: 'tote_running_double', share: 0.25, guarantee: 0, concession: false },
  { product: 'Double', member: 'tote_running_double', share: 0.55, guarantee: 5000, concession: true },
  { product: 'Treble', member: 'tote_treble', share: 0.75, guarantee: 10000, concession: false },
] as const;

function multiRacePools(race: RaceStatic): PoolPlan[] {
  const win = template('Win');
  const plans: PoolPlan[] = [];
  for (const m of MULTI_RACE) {
    const all = (race.meeting.extras.values[m.member] as number[][] | undefined) ?? [];
    // The Double runs on the last pair only; the others on every set. The guarantee is the last set's.
    const sets = m.product === 'Double' ? all.slice(-1) : all;
    sets.forEach((legs, i) => {
      const leg = legs.indexOf(race.raceNumber) + 1;
      if (leg === 0) return;
      const last = m.product === 'Double' || i === all.length - 1;
      plans.push({
        product: m.product,
        template: {
          ...win,
          guarantee: last ? m.guarantee : 0,
          leg,
          is_commingled: false,
          commingled_info: false,
          is_concession: m.concession,
        },
        full: (win.total as number) * race.poolScale * m.share,
        raceLegs: legs,
      });
    });
  }
  return plans;
}

const template = (type: string) =>
  templates.totePools.find((p) => p.product_type === type) as Record<string, unknown>;

/**
 * The pools of a race: win, place, quinella, trifecta and first four on every race (the real race's set),
 * the early quaddie or quaddie pool on the races that are legs of one, and the doubles and trebles whose
 * legs it is.
 */
export function poolsOf(race: RaceStatic): PoolPlan[] {
  const plans: PoolPlan[] = templates.totePools
    .filter((p) => p.product_type !== 'EarlyQuadrella')
    .map((p) => ({
      product: p.product_type as string,
      template: p,
      full: (p.total as number) * race.poolScale,
    }));
  const multi = template('EarlyQuadrella');
  const { earlyQuaddie, quaddie } = race.meeting;
  if (earlyQuaddie.includes(race.raceNumber)) {
    plans.push({
      product: 'EarlyQuadrella',
      template: multi,
      full: (multi.total as number) * race.poolScale,
      legs: earlyQuaddie,
    });
  } else if (quaddie.includes(race.raceNumber)) {
    plans.push({
      product: 'Quadrella',
      template: multi,
      full: (multi.total as number) * race.poolScale * 1.5,
      legs: quaddie,
    });
  }
  plans.push(...multiRacePools(race));
  return plans;
}

export const poolTotal = (plan: PoolPlan, tick: number | null, startTime: number) =>
  tick === null ? 0 : Math.round(plan.full * moneyIn(tick, startTime) * 100) / 100;

export interface PoolPrice {
  win: number;
  place: number;
  /** Share of the win pool on the runner. */
  share: number;
}

/**
 * Pool prices at a tick: each unscratched runner's share of the win pool is its fixed-odds chance times
 * noise (sd 0.2 at the close, up to 0.5 while the pool is thin), paid out after the take.
 */
export function poolPrices(
  seed: number,
  race: RaceStatic,
  runners: ReadonlyMap<string, RunnerState>,
  startTime: number,
  tick: number,
): Map<string, PoolPrice> {
  const rng = rngFor(seed, 'tote', race.id, tick);
  const sigma = 0.2 + 0.3 * (1 - moneyIn(tick, startTime));
  const live = race.runners.filter((r) => runners.get(r.entrantId)?.scratchedAt == null);
  const weights = live.map(
    (r) => Math.exp(rng.normal() * sigma) / (runners.get(r.entrantId) as RunnerState).fixedWin,
  );
  const total = weights.reduce((a, b) => a + b, 0);
  // Fitted to the real pool-place book with three places paid (3.67, the Awapuni payload); with two, scaled
  // as the fixed divisor is (7.7 / 5: assumed, no real pool prices with two places paid are shipped).
  const placeDivisor =
    POOL_PLACE_DIVISOR_THREE *
    (placesPaidBy(live.length) >= 3 ? 1 : FIXED_PLACE_DIVISOR.two / FIXED_PLACE_DIVISOR.three);
  const out = new Map<string, PoolPrice>();
  live.forEach((r, i) => {
    const share = (weights[i] as number) / total;
    const win = Math.max(1, Math.round((TAKE_OUT / share) * 10) / 10);
    const place = Math.max(
      1,
      Math.round((1 + ((win - 1) / placeDivisor) * Math.exp(rng.normal() * 0.08)) * 10) / 10,
    );
    out.set(r.entrantId, { win, place, share });
  });
  return out;
}

/** Pool prices of a race's state at `t`, or null before the tote opens. */
export function pricesAt(seed: number, race: RaceStatic, state: RaceState, t: number) {
  const tick = toteTick(t, state.startTime, state.closedAt);
  return tick === null
    ? null
    : { tick, prices: poolPrices(seed, race, state.runners, state.startTime, tick) };
}
