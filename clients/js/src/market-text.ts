/**
 * The wording of the market events (docs/events.md#market-events), read at a glance: runner number and name,
 * dollars for stakes and pools, arrows for firming (↘, the price shortens) and drifting (↗). Part of
 * event-text.ts's `describeEvent`, defensive like it.
 */
import {
  dollars,
  type EventWords,
  hhmmUtc,
  num,
  formatPrice as price,
  rec,
  runnerLabel,
  runnerOrEntrant,
  signedPct,
  str,
} from './text-parts.js';

/** Bet selections a title names before `+N more`. */
const SHOWN_SELECTIONS = 4;
/** Flucs a text shows, the latest ones. */
const SHOWN_FLUCS = 8;

function selections(v: unknown): string {
  const all = Array.isArray(v) ? v : [];
  if (all.length === 0) return 'unknown runners';
  const named = all.slice(0, SHOWN_SELECTIONS).map((s) => runnerLabel(s) ?? '?');
  return `${named.join(', ')}${all.length > SHOWN_SELECTIONS ? `, +${all.length - SHOWN_SELECTIONS} more` : ''}`;
}

/** The words of a market event; undefined for any other type. */
export function marketWords(type: string, d: Record<string, unknown>): EventWords | undefined {
  switch (type) {
    case 'odds.plunge':
    case 'odds.drift': {
      const firm = type === 'odds.plunge';
      const minutes = num(rec(d.window).minutes);
      const flucs = (Array.isArray(d.flucs) ? d.flucs.slice(-SHOWN_FLUCS) : []).map((f) =>
        price(rec(f).price),
      );
      return {
        title: `${firm ? '↘ Firming' : '↗ Drifting'}: ${runnerLabel(d.runner) ?? 'a runner'} ${price(d.from)} → ${price(d.to)} (${signedPct(d.changePct)}${minutes ? ` in ${minutes} min` : ''})`,
        details: flucs.length ? [`Flucs: ${flucs.join(' → ')}`] : [],
        tone: firm ? 'up' : 'down',
      };
    }
    case 'market.big_bet': {
      const odds = num(d.odds);
      return {
        title: `${dollars(d.stake)} ${str(d.product) ?? 'bet'} on ${selections(d.selections)}${odds ? ` at ${price(odds)}` : ''}${d.biggest === true ? ' (biggest)' : ''}`,
        details: [`Placed ${hhmmUtc(d.placedAt)}`],
        tone: 'alert',
      };
    }
    case 'market.money_flow': {
      const up = d.direction === 'for';
      const change = num(d.changePoints);
      return {
        title: `${up ? '↗ Money for' : '↘ Money against'} ${runnerOrEntrant(d.runner, d.entrant)}: ${num(d.from) ?? '?'}% → ${num(d.to) ?? '?'}% of the money`,
        details: [
          `${change !== undefined && change > 0 ? '+' : ''}${change ?? '?'} points in ${num(rec(d.window).minutes) ?? '?'} min`,
        ],
        tone: up ? 'up' : 'down',
      };
    }
    case 'race.mover_changed':
      return {
        title: `Market mover: ${runnerOrEntrant(d.to, d.entrant)} ${price(d.openPrice)} → ${price(d.price)}`,
        details: runnerLabel(d.from) ? [`Was ${runnerLabel(d.from)}`] : [],
        tone: 'up',
      };
    case 'runner.deduction':
      return {
        title: `Deductions after scratching ${runnerLabel(d.runner) ?? 'a runner'}: win ${num(d.win) ?? '?'}, place ${num(d.place) ?? '?'}`,
        tone: 'alert',
      };
    case 'pool.total':
      return {
        title: `${str(d.pool) ?? 'Tote'} pool passes ${dollars(d.milestone)}`,
        details: [`Total ${dollars(d.total)}`],
        tone: 'info',
      };
    default:
      return undefined;
  }
}
