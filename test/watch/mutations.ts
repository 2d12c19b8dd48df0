/**
 * fast-check mutations of the real payload: what a race's payload does between two polls (prices move,
 * runners scratch, results and dividends arrive, flucs slide) plus what a careless upstream does (members
 * dropped, undefined values, arrays re-ordered, unknown members added).
 */
import fc from 'fast-check';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { change, type Loose } from './support.js';

export type Mutation = { name: string; apply: (d: Loose) => void };

const MARKETS = ['fixed_win', 'fixed_place', 'pool_win', 'pool_place'] as const;
const price = fc.double({ min: 1.01, max: 501, noNaN: true }).map((n) => Math.round(n * 100) / 100);
const pickRunner = (d: Loose, i: number): Loose | undefined =>
  Array.isArray(d.runners) && d.runners.length > 0 ? d.runners[i % d.runners.length] : undefined;

/** Re-orders `items` by the sort keys in `keys` (stable, deterministic). */
function shuffle<T>(items: T[], keys: number[]): T[] {
  return items
    .map((item, i) => ({ item, k: keys[i % Math.max(keys.length, 1)] ?? i }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.item);
}

const m = (name: string, apply: (d: Loose) => void): Mutation => ({ name, apply });

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .tuple(fc.nat(), fc.constantFrom(...MARKETS), fc.option(price, { nil: null }), fc.boolean())
    .map(([i, market, p, del]) =>
      m(`odds ${market}`, (d) => {
        const r = pickRunner(d, i);
        if (!r) return;
        r.odds ??= {};
        if (del) delete r.odds[market];
        else r.odds[market] = p;
      }),
    ),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, s]) =>
    m('scratch', (d) => {
      const r = pickRunner(d, i);
      if (!r) return;
      r.is_scratched = s;
      r.scratch_time = s ? 1752710000 + i : 0;
    }),
  ),
  fc.array(fc.integer(), { minLength: 1, maxLength: 12 }).map((keys) =>
    m('shuffle runners', (d) => {
      if (Array.isArray(d.runners)) d.runners = shuffle(d.runners, keys);
    }),
  ),
  fc.nat().map((i) =>
    m('remove runner', (d) => {
      if (Array.isArray(d.runners) && d.runners.length > 1) d.runners.splice(i % d.runners.length, 1);
    }),
  ),
  fc.tuple(fc.nat(), fc.nat(99)).map(([i, n]) =>
    m('add runner', (d) => {
      const r = pickRunner(d, i);
      if (r) d.runners.push({ ...structuredClone(r), entrant_id: `new-${n}`, runner_number: 20 + n });
    }),
  ),
  fc.tuple(fc.nat(), price, fc.nat(59)).map(([i, p, minute]) =>
    m('new fluc', (d) => {
      const r = pickRunner(d, i);
      if (!r) return;
      const ts = `2025-07-17T01:${String(minute).padStart(2, '0')}:00.000000000Z`;
      r.flucs = [...(r.flucs ?? []), p].slice(-6);
      r.flucs_with_timestamp ??= {};
      const fwt = r.flucs_with_timestamp;
      fwt.last_six = [...(fwt.last_six ?? []), { timestamp: ts, fluc: p }].slice(-6);
    }),
  ),
  fc.array(fc.integer(), { minLength: 1, maxLength: 8 }).map((keys) =>
    m('new results', (d) => {
      if (!Array.isArray(d.runners)) return;
      d.results = shuffle(d.runners, keys)
        .slice(0, 4)
        .map((r: Loose, k: number) => ({
          position: k + 1,
          name: r.name,
          barrier: r.barrier,
          runner_number: r.runner_number,
          margin_length: k * 0.5,
          entrant_id: r.entrant_id,
        }));
    }),
  ),
  fc.tuple(fc.nat(), fc.nat()).map(([i, j]) =>
    m('swap placings', (d) => {
      const rs = d.results;
      if (!Array.isArray(rs) || rs.length < 2) return;
      const a = rs[i % rs.length];
      const b = rs[j % rs.length];
      [a.position, b.position] = [b.position, a.position];
    }),
  ),
  fc.tuple(fc.nat(), fc.nat(999), fc.constantFrom('Interim', 'Final')).map(([i, n, status]) =>
    m('new dividend', (d) => {
      d.dividends ??= [];
      const rows = d.dividends;
      const base =
        rows.length > 0 ? rows[i % rows.length] : { product_name: 'Pool Win', tote: 'NZ', positions: [] };
      rows.push({ ...structuredClone(base), id: `div-${n}`, status, dividend: 1 + n / 10 });
    }),
  ),
  fc.tuple(fc.nat(), price).map(([i, p]) =>
    m('change dividend', (d) => {
      const rows = d.dividends;
      if (Array.isArray(rows) && rows.length > 0) rows[i % rows.length].dividend = p;
    }),
  ),
  fc.array(fc.integer(), { minLength: 1, maxLength: 14 }).map((keys) =>
    m('shuffle dividends and pools', (d) => {
      if (Array.isArray(d.dividends)) d.dividends = shuffle(d.dividends, keys);
      if (Array.isArray(d.tote_pools)) d.tote_pools = shuffle(d.tote_pools, keys);
    }),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 5 }), fc.string({ maxLength: 8 })).map(([i, which, s]) =>
    m('nested value', (d) => {
      const r = pickRunner(d, i);
      if (which === 0 && r?.weight) r.weight.total = s;
      if (which === 1) d.race.track_condition = s;
      if (which === 2 && Array.isArray(d.tote_pools) && d.tote_pools.length)
        d.tote_pools[i % d.tote_pools.length].total = i;
      if (which === 3 && r?.speedmap) r.speedmap.settling_lengths = i % 12;
      if (which === 4) d.race.advertised_start = 1752713400 + (i % 1000);
      if (which === 5) d.race.status = s === '' ? 'Interim' : s;
    }),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 6 })).map(([i, which]) =>
    m('remove optional member', (d) => {
      const r = pickRunner(d, i);
      if (which === 0) delete d.race.weather;
      if (which === 1 && r) delete r.odds;
      if (which === 2) delete d.money_tracker;
      if (which === 3 && r) delete r.flucs_with_timestamp;
      if (which === 4) delete d.tote_pools;
      if (which === 5) d.results = null;
      if (which === 6 && r) r.odds = null;
    }),
  ),
  fc.tuple(fc.nat(), fc.nat(30), fc.boolean()).map(([i, pct, add]) =>
    m('money tracker row', (d) => {
      const rows = d.money_tracker?.entrants;
      if (!Array.isArray(rows) || rows.length === 0) return;
      if (add) rows.splice(i % rows.length, 0, { ...rows[i % rows.length], hold_percentage: pct });
      else rows[i % rows.length].bet_percentage = pct;
    }),
  ),
  fc.nat().map((i) =>
    m('undefined value', (d) => {
      const r = pickRunner(d, i);
      if (r?.odds) r.odds.pool_win = undefined;
      d.race.comment = undefined;
    }),
  ),
  fc.tuple(fc.nat(), fc.string({ maxLength: 6 })).map(([i, s]) =>
    m('edit and splice one array', (d) => {
      // fast-json-patch's known weak spot: a field change and a removal in the same array.
      const r = pickRunner(d, i);
      const starts = r?.last_starts;
      if (!Array.isArray(starts) || starts.length < 3) return;
      starts[0] = { ...starts[0], finish: s };
      starts.splice(1 + (i % (starts.length - 1)), 1);
    }),
  ),
  fc.tuple(fc.nat(), fc.string({ maxLength: 6 })).map(([i, s]) =>
    m('newest-first window', (d) => {
      const r = pickRunner(d, i);
      if (!Array.isArray(r?.last_starts)) return;
      r.last_starts = [{ finish: s, distance: '1200' }, ...r.last_starts].slice(0, 32);
    }),
  ),
  fc.tuple(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 3 })).map(([k, v]) =>
    m('unknown member', (d) => {
      d[`x_${k}`] = JSON.parse(JSON.stringify(v) ?? 'null');
    }),
  ),
);

/** `payload` with `mutations` applied in order (a copy). */
export const mutate = (payload: EventResponse, mutations: Mutation[]): EventResponse =>
  change(payload, (d) => {
    for (const mu of mutations) mu.apply(d);
  });
