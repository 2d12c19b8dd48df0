/**
 * The short line of a market event (docs/events.md#market-events) for the board's feed and the ticker:
 * arrows for firming (↘) and drifting (↗), dollars for stakes and pools. Pure and defensive, like
 * describe-event.ts.
 */
import type { RaceEvent } from '@racewire/client';
import type { Tone } from './describe-event.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const price = (v: unknown) => (num(v) === undefined ? '–' : (num(v) as number).toFixed(2));
export const dollars = (v: unknown) =>
  num(v) === undefined
    ? '$–'
    : `$${(num(v) as number).toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
const label = (runner: unknown) => {
  const r = rec(runner);
  const n = num(r.runnerNumber);
  const name = str(r.name) ?? 'runner';
  return n === undefined ? name : `#${n} ${name}`;
};
/** A market record's runner, else the entrant it names outside this race's field (never mapped onto a runner). */
const runnerOrEntrant = (runner: unknown, entrant: unknown) => {
  if (runner) return label(runner);
  const name = str(rec(entrant).name);
  return name ? `${name} (outside the field)` : 'an entrant outside the field';
};

export function describeMarket(event: RaceEvent): { what: string; tone: Tone } | undefined {
  const d = rec(event.data);
  switch (event.type) {
    case 'odds.plunge':
    case 'odds.drift': {
      const firm = event.type === 'odds.plunge';
      const pct = num(d.changePct);
      const within = num(rec(d.window).minutes);
      return {
        what: `${firm ? '↘ plunge' : '↗ drift'} ${label(d.runner)} ${price(d.from)} → ${price(d.to)}${pct === undefined ? '' : ` (${pct > 0 ? '+' : ''}${pct.toFixed(1)}%${within ? ` in ${within} min` : ''})`}`,
        tone: firm ? 'up' : 'down',
      };
    }
    case 'market.big_bet': {
      const picks = (Array.isArray(d.selections) ? d.selections : []).slice(0, 4).map(label).join(', ');
      const odds = num(d.odds);
      return {
        what: `${dollars(d.stake)} ${str(d.product) ?? 'bet'} on ${picks || '?'}${odds ? ` at ${price(odds)}` : ''}${d.biggest === true ? ' (biggest)' : ''}`,
        tone: 'alert',
      };
    }
    case 'market.money_flow': {
      const up = d.direction === 'for';
      return {
        what: `${up ? '↗ money for' : '↘ money against'} ${runnerOrEntrant(d.runner, d.entrant)} ${num(d.from) ?? '?'}% → ${num(d.to) ?? '?'}%`,
        tone: up ? 'up' : 'down',
      };
    }
    case 'race.mover_changed':
      return {
        what: `market mover ${runnerOrEntrant(d.to, d.entrant)} ${price(d.openPrice)} → ${price(d.price)}`,
        tone: 'up',
      };
    case 'runner.deduction':
      return {
        what: `deductions after ${label(d.runner)}: win ${num(d.win) ?? '?'}, place ${num(d.place) ?? '?'}`,
        tone: 'alert',
      };
    case 'pool.total':
      return { what: `${str(d.pool) ?? 'tote'} pool passes ${dollars(d.milestone)}`, tone: 'info' };
    default:
      return undefined;
  }
}
