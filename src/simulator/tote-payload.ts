/**
 * The tote members of /events: `tote_pools` (the real pool records as templates, totals and status from
 * the tote at the current tick), the quinella approximates (`qla_odds`) and multi-leg `will_pays` with
 * `with_will_pays`, the tote-trends XML with `with_tote_trends_data` (on the trifecta, first four and
 * multi-leg pools, as in the real payload), and `substitutions` (the tote favourite takes the win-pool
 * bets of a late scratching: the real race lists its lowest pool_win runner).
 */
import type { RaceState, RaceStatic } from './model.js';
import { iso } from './payloads.js';
import { type PoolPlan, type PoolPrice, poolsOf, poolTotal } from './tote.js';

export interface ToteOptions {
  willPays: boolean;
  toteTrends: boolean;
}

const TREND_CODES: Record<string, string> = {
  Trifecta: 'TFA',
  FirstFour: 'FT4',
  EarlyQuadrella: 'QAD',
  Quadrella: 'QAD',
};
const money = (n: number) => n.toFixed(2);

function trendsXml(
  race: RaceStatic,
  code: string,
  total: number,
  prices: ReadonlyMap<string, PoolPrice>,
): string {
  const m = race.meeting;
  const lines = [
    '<meetings>',
    `  <date>${iso(m.date).slice(0, 10)}</date>`,
    `  <meeting meeting_number="${m.toteMeetingNumber}" meeting_type="${m.category === 'G' ? 'G' : 'R'}">`,
    `    <meet_ID meet_mnem="${m.name.slice(0, 4).toUpperCase()}" NetSet_Name="${m.name}" Club="${m.name} Racing Club"/>`,
    `    <race race_number="${race.raceNumber}">`,
    '      <bet_types>',
    `        <bet_type type="${code}">`,
    `          <pool_total>${money(total)}</pool_total>`,
    `          <runners race_number="${race.raceNumber}">`,
  ];
  for (const r of race.runners) {
    const share = prices.get(r.entrantId)?.share ?? 0;
    const inv = (k: number) => money((total * (share * (3 - k) + (1 / race.runners.length) * k)) / 3);
    lines.push(
      `            <runner runner_number="${r.number}">`,
      `              <runner_scratched>${share === 0 ? 'True' : 'False'}</runner_scratched>`,
      `              <runner_name>${r.name}</runner_name>`,
      ...[0, 1, 2].map(
        (k) => `              <runner_investment${k + 1}>${inv(k)}</runner_investment${k + 1}>`,
      ),
      '            </runner>',
    );
  }
  lines.push(
    '          </runners>',
    '        </bet_type>',
    '      </bet_types>',
    '    </race>',
    '  </meeting>',
    '</meetings>',
  );
  return `${lines.join('\r\n')}\r\n`;
}

/** Quinella approximates per selection: "-|13.90|..." with `scr` for a scratched runner. */
function qlaOdds(race: RaceStatic, prices: ReadonlyMap<string, PoolPrice>) {
  const ranked = [...prices.entries()].sort((a, b) => a[1].win - b[1].win).map(([id]) => id);
  return race.runners.map((a) => {
    const pa = prices.get(a.entrantId);
    const cells = race.runners.map((b) => {
      const pb = prices.get(b.entrantId);
      if (a === b) return '-';
      if (!pa || !pb) return 'scr';
      const p = (pa.share * pb.share) / (1 - pa.share) + (pb.share * pa.share) / (1 - pb.share);
      return (0.84 / p).toFixed(2);
    });
    return { favouritism: ranked.indexOf(a.entrantId) + 1, sel: a.number, oddsString: cells.join('|') };
  });
}

function pool(
  race: RaceStatic,
  state: RaceState,
  plan: PoolPlan,
  tick: number | null,
  prices: ReadonlyMap<string, PoolPrice>,
  opts: ToteOptions,
): Record<string, unknown> {
  const total = poolTotal(plan, tick, state.startTime);
  const { tote_trends: _trends, will_pays: _pays, qla_odds: _qla, ...base } = plan.template;
  const record: Record<string, unknown> = {
    ...base,
    product_type: plan.product,
    total,
    status: state.status === 'Open' ? 'OPEN' : 'CLOSED',
    win_investment: String(Math.round(total * 8)),
  };
  if ('is_final' in base) record.is_final = state.status === 'Final';
  if (plan.legs) {
    record.jackpot = Math.round(total * 0.84 * 100) / 100;
    record.will_pay_current_leg = plan.legs.indexOf(race.raceNumber) + 1;
    record.will_pay_live_units = Math.round(total / 1000) / 100;
    delete record.early_quaddie;
    record[plan.product === 'EarlyQuadrella' ? 'early_quaddie' : 'quaddie'] = plan.legs;
  }
  const code = TREND_CODES[plan.product];
  if (opts.toteTrends && code) {
    record.tote_trends = {
      pool_total: Math.round(total * 1.03 * 100) / 100,
      ...(plan.legs ? { final_leg_start_time: '' } : {}),
      tote_trends_data: trendsXml(race, code, total, prices),
    };
  }
  if (opts.willPays && plan.product === 'Quinella' && prices.size > 1)
    record.qla_odds = qlaOdds(race, prices);
  if (opts.willPays && plan.legs) {
    record.will_pays = race.runners
      .filter((r) => prices.has(r.entrantId))
      .map((r) => ({
        odds:
          Math.round(
            Math.min(total, (0.84 * total) / (0.5 + 30 * (prices.get(r.entrantId)?.share ?? 0))) * 10,
          ) / 10,
        sel: r.number,
      }));
  }
  return record;
}

export function totePools(
  race: RaceStatic,
  state: RaceState,
  tick: number | null,
  prices: ReadonlyMap<string, PoolPrice>,
  opts: ToteOptions,
): Record<string, unknown>[] {
  return poolsOf(race).map((plan) => pool(race, state, plan, tick, prices, opts));
}

/** The tote favourite, who takes a late scratching's win-pool bets; null before the pools open. */
export function substitutions(race: RaceStatic, prices: ReadonlyMap<string, PoolPrice>) {
  let best: { id: string; win: number } | undefined;
  for (const r of race.runners) {
    const p = prices.get(r.entrantId);
    if (p && (!best || p.win < best.win)) best = { id: r.entrantId, win: p.win };
  }
  return best ? [{ entrant_id: best.id, tote: 'NZ', product_name: 'Pool Win' }] : null;
}
