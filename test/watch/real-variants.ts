/**
 * Synthetic variants of the real Awapuni R1 payload carrying the structures the live API sends that the
 * real capture lacks (test/fixtures/real-variants/README.md): meeting-wide bets, entrants outside the
 * field, partial results, a dead heat, an emergency, a protest before Final, extra pools and their
 * dividends. Each is the real payload with members replaced; nothing here invents a member or a format.
 */
import { readFileSync } from 'node:fs';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { change, type Loose, openPayload, realPayload, runner } from './support.js';

const variant = (name: string): Loose =>
  JSON.parse(readFileSync(new URL(`../fixtures/real-variants/${name}.json`, import.meta.url), 'utf8'));

export const BIG_BETS: Loose[] = variant('big-bets').big_bets;
const OUTSIDE = variant('outside-field');
/** extra-pools.json: RunningDouble, Double, Treble and Duet pools and their dividend rows. */
export const EXTRA_POOLS: Loose = variant('extra-pools');

/** The real race before the jump, with the bet lists on and empty (the options just turned on). */
export const openWithNoBets = (): EventResponse => change(openPayload(), (d) => (d.big_bets = []));

/** The open race listing the meeting's bets of big-bets.json. */
export const openWithBets = (): EventResponse => change(openPayload(), (d) => (d.big_bets = BIG_BETS));

/** `payload` as race `n` of the same meeting (a leg of the Multi), with its own id. */
export const asRace = (payload: EventResponse, n: number): EventResponse =>
  change(payload, (d) => {
    d.race.race_number = n;
    d.race.event_id = `${d.race.event_id.slice(0, -2)}0${n}`;
  });

/**
 * The open race whose mover, tips and money tracker name entrants outside the field, as the real API does:
 * the mover a "Live Racing" record (the real mover record with those members replaced), 3 of 6 tips, and
 * tracker rows for two more ids; `moneyShift` points of hold move to the mover's rows.
 */
export const openOutsideField = (moneyShift = 0): EventResponse =>
  change(openPayload(), (d) => {
    d.mover = { ...d.mover, ...OUTSIDE.mover };
    d.race.tips = OUTSIDE.tips;
    const rows = structuredClone(OUTSIDE.money_tracker_rows);
    rows[0].hold_percentage += moneyShift;
    d.money_tracker.entrants.push(...rows);
  });

/** The real Final as a real Final of another race lists it: the top 4 only, margins 0, no positional margin. */
export const partialFinal = (): EventResponse =>
  change(realPayload(), (d) => {
    d.results = d.results.slice(0, 4).map((r: Loose) => {
      const { positional_margin: _, ...row } = r;
      return { ...row, margin_length: 0 };
    });
  });

/**
 * A dead heat for third: Keepitinyourwallet (#6, fourth by a nose in the real Final) shares position 3
 * with Ballinran (#7); the rows after keep their positions (5 to 8). The place pool pays three ways and
 * #6 gets a place dividend of its own, Ballinran's is cut; the trifecta pays 2:4:7 and 2:4:6, each half.
 * `status` Interim (its Interim rows only) or Final.
 */
export const deadHeat = (status: 'Interim' | 'Final'): EventResponse =>
  change(realPayload(), (d) => {
    d.race.status = status;
    const six = d.results.find((r: Loose) => r.runner_number === 6);
    six.position = 3;
    six.positional_margin = 'DH';
    d.dividends = d.dividends.filter((x: Loose) => status === 'Final' || x.status === 'Interim');
    for (const x of d.dividends) {
      if (x.product_name === 'Pool Place' && x.description === '7') x.dividend = 2.1;
    }
    for (const s of status === 'Final' ? ['Interim', 'Final'] : ['Interim']) {
      const row = { tote: 'NZ', status: s, jackpot_size: 0 };
      d.dividends.push(
        {
          ...row,
          id: `dead-heat-place-6-${s.toLowerCase()}`,
          product_name: 'Pool Place',
          dividend: 1.6,
          pool_size: 3923.51,
          positions: [{ runner_number: 6, position: 1 }],
          description: '6',
        },
        {
          ...row,
          id: `dead-heat-trifecta-6-${s.toLowerCase()}`,
          product_name: 'Pool Trifecta',
          dividend: 188.2,
          pool_size: 7976.24,
          positions: [2, 4, 6].map((n, i) => ({ runner_number: n, position: i + 1 })),
          description: '2:4:6',
        },
      );
    }
    for (const x of d.dividends)
      if (x.product_name === 'Pool Trifecta' && x.description === '2:4:7') x.dividend = 198.3;
  });

/**
 * The open race with Flor De Cana (#8) the first emergency and Ballinran (#7) the second, as acceptances
 * list them (the simulator's shape: the last numbers, `emergency_position` "1" and "2").
 */
export const withEmergency = (): EventResponse =>
  change(openPayload(), (d) => {
    Object.assign(runner(d, 8), { is_emergency: true, emergency_position: '1' });
    Object.assign(runner(d, 7), { is_emergency: true, emergency_position: '2' });
  });

/**
 * Starpello (#5) scratched before the emergencies' deadline (21:00 UTC the day before, 3 h 50 min out);
 * the first emergency #8 takes its place in the field (no longer an emergency).
 */
export const emergencyPromoted = (): EventResponse =>
  change(withEmergency(), (d) => {
    Object.assign(runner(d, 5), { is_scratched: true, scratch_time: 1752699600 });
    Object.assign(runner(d, 8), { is_emergency: false, emergency_position: '' });
  });

/** The deadline (2 h 30 min out): the second emergency #7, never promoted, is scratched. */
export const emergencyDeadline = (): EventResponse =>
  change(emergencyPromoted(), (d) => {
    Object.assign(runner(d, 7), { is_scratched: true, scratch_time: 1752704400 });
  });

/** The real race run and Interim, its Interim dividends only; `protest` and its reason as given. */
export const interim = (protest = false, reason = ''): EventResponse =>
  change(realPayload(), (d) => {
    d.race.status = 'Interim';
    d.race.protest = protest;
    d.race.protest_reason = reason;
    d.dividends = d.dividends.filter((x: Loose) => x.status === 'Interim');
  });

const swap = (n: number) => (n === 2 ? 4 : n === 4 ? 2 : n);
/** The ordered products whose dividends follow first and second; place and quinella pay the same pair. */
const AMENDED: Record<string, number> = { 'Pool Win': 4.8, 'Pool Trifecta': 512.3, 'Pool First4': 1688.9 };

/**
 * First and second swap places (a protest upheld): Ruji (#4) wins, Frosbie (#2) second. The ordered
 * products' dividends follow: #2 and #4 swap in their runners and description, at new amounts (Ruji's
 * real pool win price for the win).
 */
export const swapped = (payload: EventResponse): EventResponse =>
  change(payload, (d) => {
    const first = d.results.find((r: Loose) => r.runner_number === 2);
    const second = d.results.find((r: Loose) => r.runner_number === 4);
    for (const key of ['position', 'margin_length', 'positional_margin']) {
      [first[key], second[key]] = [second[key], first[key]];
    }
    for (const x of d.dividends) {
      const amount = AMENDED[x.product_name];
      if (amount === undefined) continue;
      x.dividend = amount;
      for (const p of x.positions) p.runner_number = swap(p.runner_number);
      x.description = x.description
        .split(':')
        .map((n: string) => String(swap(Number(n))))
        .join(':');
    }
  });

/** The real race with the pools of extra-pools.json beside its own, open or Final with their dividends. */
export const withExtraPools = (final: boolean): EventResponse =>
  change(final ? realPayload() : openPayload(), (d) => {
    d.tote_pools.push(...EXTRA_POOLS.tote_pools);
    if (!final) return;
    // Interleaved with the real rows, Interim and Final mixed as the live list is.
    const extra: Loose[] = EXTRA_POOLS.dividends;
    d.dividends = d.dividends.flatMap((x: Loose, i: number) => (extra[i] ? [x, extra[i]] : [x]));
  });
